import Glibc
import LecternCore

/// A plain TCP socket with no protocol logic (no pongs): what a broken or hostile client is.
public final class RawSocket {
    let fd: Int32

    /// Connects to `host:port`, from the local address `source` when given (any 127.0.0.x
    /// reaches a service on 127.0.0.1: one machine can be many peers).
    public init(host: String = "127.0.0.1", port: Int, from source: String? = nil) throws {
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
    }

    /// Sends all of `bytes` (blocking while the peer doesn't read); false if the connection
    /// failed (the peer closed it) before they were all sent.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            off += n
        }
        return true
    }

    /// Sends what the socket takes now, never blocking; the number of bytes sent.
    @discardableResult
    public func sendNow(_ bytes: [UInt8]) -> Int {
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
    public func receive(timeout: Double) -> [UInt8]? {
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
