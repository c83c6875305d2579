import Glibc

/// A plain TCP socket with no protocol logic (no pongs): what a broken or hostile client is.
public final class RawSocket {
    let fd: Int32

    public init(host: String = "127.0.0.1", port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &addr.sin_addr)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
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
