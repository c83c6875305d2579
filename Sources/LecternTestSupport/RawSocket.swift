import Foundation
import Glibc
import LecternModel
import LecternSystem
import LecternProtocol

/// A TCP socket with no protocol logic (no pongs): what a broken or hostile client is. With
/// `tls`, TLS pinned to that certificate, as the service ships: the handshake is done when
/// the socket is made, and every byte the test sends or reads is inside it
/// (`TLSClientSession`); without, plain bytes (tests about plain, or about TCP alone).
public final class RawSocket {
    let fd: Int32
    /// TLS, when the socket speaks it.
    private let session: TLSClientSession?
    /// Serialises writes to the descriptor, so records go out in the order they were sealed.
    private let writeLock = NSLock()
    /// Sealed bytes `sendNow` couldn't hand to the kernel yet (sent first by the next write).
    private var unsent: [UInt8] = []
    /// The certificate the peer presented over TLS (nil: plain).
    public private(set) var certificate: CertificateFingerprint?

    /// Connects to `host:port`, from the local address `source` when given (any 127.0.0.x
    /// reaches a service on 127.0.0.1: one machine can be many peers); with `tls`, over TLS,
    /// going on only with a certificate of that fingerprint.
    public init(
        host: String = "127.0.0.1", port: Int, from source: String? = nil, tls: CertificateFingerprint? = nil,
        handshakeTimeout: Double = 15
    ) throws {
        session = try tls.map { _ in try TLSClientSession() }
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Fixtures.ToolError(description: "socket: \(String(cString: strerror(errno)))") }
        func address(_ host: String, _ port: Int) -> sockaddr_in {
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &a.sin_addr)
            return a
        }
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        if let source {
            var local = address(source, 0)
            let rc = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } }
            guard rc == 0 else { close(); throw Fixtures.ToolError(description: "bind \(source): \(String(cString: strerror(errno)))") }
        }
        var remote = address(host, port)
        let rc = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, size) } }
        guard rc == 0 else { close(); throw Fixtures.ToolError(description: "connect: \(String(cString: strerror(errno)))") }
        if let tls {
            do { try handshake(pin: tls, timeout: handshakeTimeout) } catch {
                close()
                throw error
            }
        }
    }

    /// The TLS handshake over the blocking descriptor; what the peer sent instead of TLS
    /// (a plain refusal) is in the error.
    private func handshake(pin: CertificateFingerprint, timeout: Double) throws {
        guard let session else { return }
        let deadline = MonotonicClock.now() + timeout
        var received: [UInt8] = []
        while true {
            let step = session.handshake()
            guard sendRaw(session.takeOutput()) else {
                throw Fixtures.ToolError(description: "TLS handshake: the peer closed (it sent \(Self.show(received)))")
            }
            switch step {
            case .done:
                certificate = session.peerFingerprint
                guard certificate == pin else {
                    throw Fixtures.ToolError(description: "TLS: the certificate is \(certificate.map { "\($0)" } ?? "missing"), not the pinned \(pin)")
                }
                return
            case .failed(let why):
                throw Fixtures.ToolError(description: "TLS handshake failed: \(why) (the peer sent \(Self.show(received)))")
            case .needsInput:
                guard let bytes = receiveRaw(timeout: deadline - MonotonicClock.now()) else {
                    throw Fixtures.ToolError(description: "TLS handshake: nothing in \(timeout) s")
                }
                guard !bytes.isEmpty else {
                    throw Fixtures.ToolError(description: "TLS handshake: the peer closed (it sent \(Self.show(received)))")
                }
                received += bytes.prefix(max(0, 200 - received.count))
                session.feed(bytes)
            }
        }
    }

    static func show(_ bytes: [UInt8]) -> String {
        bytes.isEmpty ? "nothing" : "\(bytes.count) bytes: \(bytes.prefix(24).map { String(format: "%02x", $0) }.joined(separator: " "))"
    }

    /// Sends all of `bytes` (blocking while the peer doesn't read); false if the connection
    /// failed (the peer closed it) before they were all sent.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        guard let session else { return sendRaw(bytes) }
        return writeLock.withLock {
            guard sendRaw(unsent) else { return false }
            unsent = []
            return session.seal(bytes) && sendRaw(session.takeOutput())
        }
    }

    private func sendRaw(_ bytes: [UInt8]) -> Bool {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            off += n
        }
        return true
    }

    /// Sends what the socket takes now, never blocking; the number of bytes sent.
    /// Over TLS: sealed a record (16 KiB) at a time while the kernel takes each whole; what
    /// it doesn't take of the last waits in `unsent` (bounded: one record), sent first later.
    @discardableResult
    public func sendNow(_ bytes: [UInt8]) -> Int {
        guard let session else { return sendRawNow(bytes) }
        guard writeLock.try() else { return 0 }
        defer { writeLock.unlock() }
        unsent.removeFirst(sendRawNow(unsent))
        var taken = 0
        while unsent.isEmpty, taken < bytes.count {
            let n = min(bytes.count - taken, 16384)
            guard session.seal(Array(bytes[taken..<(taken + n)])) else { break }
            taken += n
            let sealed = session.takeOutput()
            unsent = Array(sealed[sendRawNow(sealed)...])
        }
        return taken
    }

    private func sendRawNow(_ bytes: [UInt8]) -> Int {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n <= 0 { break }
            off += n
        }
        return off
    }

    /// Reads until `enough` says so, the peer closes, or `timeout` passes; what arrived.
    public func read(timeout: Double, until enough: ([UInt8]) -> Bool) -> [UInt8] {
        var got: [UInt8] = []
        let deadline = MonotonicClock.now() + timeout
        while !enough(got), MonotonicClock.now() < deadline {
            guard let b = receive(timeout: deadline - MonotonicClock.now()), !b.isEmpty else { break }
            got += b
        }
        return got
    }

    /// Ends both directions now (a thread blocked sending or receiving returns).
    public func shutdown() { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }

    /// Bytes received within `timeout` seconds; empty when the peer closed; nil on time-out.
    /// Over TLS, the plain bytes of the records that arrived (waiting for a record's end).
    public func receive(timeout: Double) -> [UInt8]? {
        guard let session else { return receiveRaw(timeout: timeout) }
        let deadline = MonotonicClock.now() + max(0, timeout)
        while true {
            let (plain, closed) = session.open()
            // What reading made the session say (an alert, a key update) goes out in order.
            if writeLock.try() {
                let out = session.takeOutput()
                if !out.isEmpty, sendRaw(unsent) {
                    unsent = []
                    _ = sendRaw(out)
                }
                writeLock.unlock()
            }
            if !plain.isEmpty { return plain }
            if closed { return [] }
            guard let bytes = receiveRaw(timeout: deadline - MonotonicClock.now()) else { return nil }
            guard !bytes.isEmpty else { return [] }
            session.feed(bytes)
        }
    }

    private func receiveRaw(timeout: Double) -> [UInt8]? {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, Int32(max(0, timeout) * 1000)) > 0 else { return nil }
        var buf = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &buf, buf.count, 0)
        return n <= 0 ? [] : Array(buf[0..<n])
    }

    private var closed = false
    /// Closes once: a second close(2) could close an fd number the process reused meanwhile
    /// (a socket the service in this process just accepted).
    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }
    deinit { close() }
}
