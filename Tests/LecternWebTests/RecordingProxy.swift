import Foundation
import Glibc
import LecternTestSupport

/// A TCP proxy on 127.0.0.1 in front of the service that keeps every byte a browser sends,
/// per connection (the room's Wi-Fi as someone listening on it would see it): what was sent
/// in plain and what inside TLS can be told apart by each connection's first byte (0x16).
final class RecordingProxy: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var connections: [[UInt8]] = []
    private var stopped = false

    init(to target: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var a = Self.address(0)
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        guard withUnsafePointer(to: &a, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } }) == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw Fixtures.ToolError(description: "proxy: \(String(cString: strerror(errno)))")
        }
        var bound = sockaddr_in()
        var len = size
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        port = Int(UInt16(bigEndian: bound.sin_port))
        listener = fd
        let listener = fd
        Thread.detachNewThread { [weak self] in
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0, let self, !self.isStopped else { if client >= 0 { close(client) }; return }
                let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                var t = Self.address(target)
                guard withUnsafePointer(to: &t, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, size) } }) == 0 else {
                    close(client); close(upstream); continue
                }
                let index = self.lock.withLock { () -> Int in
                    self.connections.append([])
                    return self.connections.count - 1
                }
                let pair = Pair(client, upstream)
                Thread.detachNewThread { self.pump(from: client, to: upstream, record: index, pair: pair) }
                Thread.detachNewThread { self.pump(from: upstream, to: client, record: nil, pair: pair) }
            }
        }
    }

    /// Both descriptors of a proxied connection, closed when both directions are done.
    final class Pair: @unchecked Sendable {
        let a: Int32, b: Int32
        private let lock = NSLock()
        private var done = 0
        init(_ a: Int32, _ b: Int32) { (self.a, self.b) = (a, b) }
        func finished() {
            let last = lock.withLock { () -> Bool in
                done += 1
                return done == 2
            }
            if last { close(a); close(b) }
        }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private static func address(_ port: Int) -> sockaddr_in {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &a.sin_addr)
        return a
    }

    private func pump(from: Int32, to: Int32, record: Int?, pair: Pair) {
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(from, &buf, buf.count)
            if n <= 0 { break }
            if let record { lock.withLock { connections[record] += buf[0..<n] } }
            var sent = 0
            while sent < n {
                let m = buf[sent..<n].withUnsafeBytes { write(to, $0.baseAddress, n - sent) }
                if m <= 0 { break }
                sent += m
            }
            if sent < n { break }
        }
        shutdown(to, Int32(SHUT_WR))
        shutdown(from, Int32(SHUT_RD))
        pair.finished()
    }

    /// What the browser sent on each connection so far, in the order they were made.
    var sent: [[UInt8]] { lock.withLock { connections } }
    /// The connections that were not TLS (their first byte isn't a handshake record's 0x16).
    var plain: [[UInt8]] { sent.filter { !$0.isEmpty && $0[0] != 0x16 } }
    var tls: [[UInt8]] { sent.filter { !$0.isEmpty && $0[0] == 0x16 } }

    func stop() {
        lock.withLock { stopped = true }
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }
}

extension Array where Element == UInt8 {
    /// Whether `needle`'s bytes occur in these bytes.
    func contains(bytes needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, count >= needle.count else { return false }
        for i in 0...(count - needle.count) where self[i] == needle[0] && Array(self[i..<i + needle.count]) == needle { return true }
        return false
    }
}
