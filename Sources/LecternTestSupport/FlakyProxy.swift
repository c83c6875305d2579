import Foundation
import Glibc
import LecternModel
import LecternSystem

/// A TCP proxy playing the room's Wi-Fi between a browser and the service: it forwards
/// bytes both ways, and on command refuses new connections (accepted and reset at once, the
/// way a dropped network answers), freezes the open ones (bytes stay unread, nothing
/// closes: a phone out of range), or resets them. `outage(seconds:)` is the whole story of
/// a Wi-Fi drop: freeze and refuse for that long (timed by the proxy's own thread, not by
/// the test), then reset what was frozen and forward again.
///
/// It counts the connections it accepted, and those it refused, so a test can tell how
/// often a client tried.
///
/// Sendable unchecked, and why that holds: every `var` of the proxy (the `_` counters, the
/// mode, `frozen`, `pairs`, `stopped`) and each pair's `frozen` and `resetAsked` are read
/// and written only with `lock` held; a pair's link queue only by that pair's own thread;
/// the descriptors are `let`s, each closed by the one thread that owns it.
public final class FlakyProxy: @unchecked Sendable {
    public enum NewConnections: Sendable { case forward, refuse, hold }

    public let port: Int
    public var target: Int { lock.withLock { _target } }
    private var _target: Int
    private let listener: Int32
    private let lock = NSLock()
    private var newConnections = NewConnections.forward
    private var frozen = false
    private var pairs: [Pair] = []
    private var stopped = false
    private var _accepted = 0
    private var _refused = 0
    private var _outages = 0
    private var _attemptTimes: [Double] = []
    private var _upstreamRate: Double = 0
    /// A narrow link towards the service: bytes a second and one-way delay (0: none).
    private var _linkRate: Double = 0
    private var _linkDelay: Double = 0
    /// Bytes the link's queue holds at most (past it the proxy stops reading: TCP's
    /// back-pressure reaches the sender, as a router's full queue does).
    public static let linkQueueBytes = 64 << 10

    final class Pair {
        let a: Int32, b: Int32
        var frozen = false
        /// Bytes on their way to the service over the narrow link, each with when it arrives.
        var inFlight: [(bytes: [UInt8], at: Double)] = []
        var inFlightBytes = 0
        var linkFree = 0.0
        /// Asked to reset: the pair's own thread does it (only it closes the descriptors).
        var resetAsked = false
        init(_ a: Int32, _ b: Int32) { (self.a, self.b) = (a, b) }
    }

    /// A proxy on a free port of 127.0.0.1 forwarding to `127.0.0.1:target`.
    public init(to target: Int) throws {
        _target = target
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Fixtures.ToolError(description: "socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = Self.address(0)
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard ok, listen(fd, 64) == 0 else {
            Glibc.close(fd)
            throw Fixtures.ToolError(description: "proxy listen: \(String(cString: strerror(errno)))")
        }
        listener = fd
        port = Int(UInt16(bigEndian: addr.sin_port))
        let t = Thread { [unowned self] in self.acceptLoop() }
        t.name = "FlakyProxy.accept"
        t.start()
    }

    deinit { stop() }

    public var url: String { "http://127.0.0.1:\(port)/" }
    /// Connections accepted and forwarded (or held).
    public var accepted: Int { lock.withLock { _accepted } }
    /// Connections accepted only to be reset (the network was down).
    public var refused: Int { lock.withLock { _refused } }
    /// Every connection attempt the proxy saw.
    public var attempts: Int { lock.withLock { _accepted + _refused } }
    /// When each connection attempt came (MonotonicClock seconds), in order.
    public var attemptTimes: [Double] { lock.withLock { _attemptTimes } }
    /// Outages begun and not yet over.
    public var inOutage: Bool { lock.withLock { _outages > 0 } }

    /// New connections go to `127.0.0.1:port` from now on (a restarted service).
    public func retarget(to port: Int) { lock.withLock { _target = port } }

    /// Bytes from the clients to the service are forwarded at most this fast (0: no limit):
    /// a slow room Wi-Fi for an upload.
    public func throttleUpstream(bytesPerSecond: Double) { lock.withLock { _upstreamRate = bytesPerSecond } }

    /// The way to the service becomes a link of `bytesPerSecond` with `delay` seconds one way
    /// (a busy Wi-Fi): each piece arrives once the link has carried it, plus the delay; at
    /// most `linkQueueBytes` wait (new connections and open ones alike).
    public func shapeUpstream(bytesPerSecond: Double, delay: Double) {
        lock.withLock {
            _linkRate = bytesPerSecond
            _linkDelay = delay
        }
    }

    /// What happens to new connections from now on.
    public func setNewConnections(_ mode: NewConnections) { lock.withLock { newConnections = mode } }

    /// Stops (or restarts) forwarding on every open connection; frozen bytes wait unread.
    public func freeze(_ on: Bool = true) {
        lock.withLock {
            frozen = on
            for p in pairs { p.frozen = on }
        }
    }

    /// Resets every open connection (RST to both ends).
    public func resetAll() {
        let all = lock.withLock { () -> [Pair] in
            let all = pairs
            pairs.removeAll()
            return all
        }
        for p in all { reset(p) }
    }

    /// A Wi-Fi drop of `seconds`: open connections freeze, new ones are refused (or held,
    /// with `newConnections: .hold`); when the time is up the frozen connections are reset
    /// and everything is forwarded again. Returns at once; `inOutage` says when it is over.
    public func outage(seconds: Double, newConnections mode: NewConnections = .refuse) {
        lock.withLock {
            _outages += 1
            frozen = true
            for p in pairs { p.frozen = true }
            newConnections = mode
        }
        let t = Thread { [weak self] in
            MonotonicClock.sleep(until: MonotonicClock.now() + seconds)
            guard let self else { return }
            self.lock.withLock {
                self.frozen = false
                self.newConnections = .forward
            }
            // Everything opened before or during the drop is gone: reset it.
            self.resetAll()
            self.lock.withLock { self._outages -= 1 }
        }
        t.name = "FlakyProxy.outage"
        t.start()
    }

    public func stop() {
        let all: [Pair]? = lock.withLock {
            guard !stopped else { return nil }
            stopped = true
            let all = pairs
            pairs.removeAll()
            return all
        }
        guard let all else { return }
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        for p in all { reset(p) }
    }

    // ── the machinery ──

    private static func address(_ port: Int) -> sockaddr_in {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = in_port_t(UInt16(port).bigEndian)
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        return a
    }

    private func acceptLoop() {
        defer { Glibc.close(listener) }
        while !lock.withLock({ stopped }) {
            var p = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            let mode = lock.withLock { () -> NewConnections in
                _attemptTimes.append(MonotonicClock.now())
                return newConnections
            }
            if mode == .refuse {
                lock.withLock { _refused += 1 }
                Self.abort(client)
                continue
            }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var addr = Self.address(lock.withLock { _target })
            let rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard rc == 0 else {
                Glibc.close(upstream)
                Self.abort(client)
                continue
            }
            let pair = Pair(client, upstream)
            lock.withLock {
                _accepted += 1
                pair.frozen = frozen || mode == .hold
                pairs.append(pair)
            }
            // Handed to the pair's thread: from here on its `frozen` and `resetAsked` are read
            // and written with `lock` held, its link queue (`inFlight`, `inFlightBytes`,
            // `linkFree`) by that thread alone.
            nonisolated(unsafe) let handed = pair
            let t = Thread { [weak self] in self?.forward(handed) }
            t.name = "FlakyProxy.pair"
            t.start()
        }
    }

    private func forward(_ pair: Pair) {
        var buf = [UInt8](repeating: 0, count: 16384)
        while true {
            let (reset, frozen) = lock.withLock { (pair.resetAsked || stopped, pair.frozen) }
            if reset {
                Self.abort(pair.a)
                Self.abort(pair.b)
                return
            }
            if frozen {
                MonotonicClock.sleep(until: MonotonicClock.now() + 0.05)
                continue
            }
            let (linkRate, linkDelay) = lock.withLock { (_linkRate, _linkDelay) }
            let shaped = linkRate > 0
            // The link: what has arrived goes on to the service.
            let now = MonotonicClock.now()
            while let first = pair.inFlight.first, first.at <= now {
                pair.inFlight.removeFirst()
                pair.inFlightBytes -= first.bytes.count
                if !sendAll(pair.b, first.bytes, first.bytes.count) { break }
            }
            let full = shaped && pair.inFlightBytes >= Self.linkQueueBytes
            var fds = [pollfd(fd: pair.a, events: full ? 0 : Int16(POLLIN), revents: 0), pollfd(fd: pair.b, events: Int16(POLLIN), revents: 0)]
            let wait = pair.inFlight.first.map { max(1, Int32(($0.at - now) * 1000)) } ?? 100
            guard poll(&fds, 2, min(100, wait)) > 0 else { continue }
            for (i, f) in fds.enumerated() where f.revents != 0 {
                let from = i == 0 ? pair.a : pair.b, to = i == 0 ? pair.b : pair.a
                // Frozen or reset between poll and read: leave the bytes where they are.
                if lock.withLock({ pair.frozen || pair.resetAsked }) { break }
                let rate = i == 0 ? lock.withLock { _upstreamRate } : 0
                let n = recv(from, &buf, buf.count, 0)
                if n > 0, i == 0, shaped {
                    let t = MonotonicClock.now()
                    pair.linkFree = max(t, pair.linkFree) + Double(n) / linkRate
                    pair.inFlight.append((Array(buf[0..<n]), pair.linkFree + linkDelay))
                    pair.inFlightBytes += n
                    continue
                }
                if n > 0, rate > 0 { MonotonicClock.sleep(until: MonotonicClock.now() + Double(n) / rate) }
                if n <= 0 || !sendAll(to, buf, n) {
                    lock.withLock { pairs.removeAll { $0 === pair } }
                    Glibc.shutdown(pair.a, Int32(SHUT_RDWR))
                    Glibc.shutdown(pair.b, Int32(SHUT_RDWR))
                    Glibc.close(pair.a)
                    Glibc.close(pair.b)
                    return
                }
            }
        }
    }

    private func sendAll(_ fd: Int32, _ buf: [UInt8], _ count: Int) -> Bool {
        var off = 0
        while off < count {
            let n = buf[off..<count].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            off += n
        }
        return true
    }

    private func reset(_ pair: Pair) { lock.withLock { pair.resetAsked = true } }

    /// Closes with RST (SO_LINGER 0), as a network that gave up would.
    private static func abort(_ fd: Int32) {
        var l = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, socklen_t(MemoryLayout<linger>.size))
        Glibc.close(fd)
    }
}
