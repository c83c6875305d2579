import Foundation
import Glibc
import LecternProtocol
import LecternTestSupport

/// What the attacks of issue 12 ("A hostile room") are made of: plain sockets from any
/// loopback address (127.0.0.x all reach the service on 127.0.0.1), the process's memory,
/// and its descriptor limit. Each attack is a test file of this target.
enum Hostile {
    /// A blocking TCP connection to 127.0.0.1:`port` from `source` (a 127.0.0.x address).
    static func connect(port: Int, from source: String = "127.0.0.1") throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Fixtures.ToolError(description: "socket: \(String(cString: strerror(errno)))") }
        func sockaddrIn(_ host: String, _ port: Int) -> sockaddr_in {
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &a.sin_addr)
            return a
        }
        var local = sockaddrIn(source, 0)
        var remote = sockaddrIn("127.0.0.1", port)
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok =
            withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } } == 0
            && withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, size) } } == 0
        guard ok else {
            let e = String(cString: strerror(errno))
            Glibc.close(fd)
            throw Fixtures.ToolError(description: "connect from \(source): \(e)")
        }
        return fd
    }

    /// Sends what the socket takes now (never blocks); the number of bytes sent.
    @discardableResult
    static func sendNow(_ fd: Int32, _ bytes: [UInt8]) -> Int {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n <= 0 { break }
            off += n
        }
        return off
    }

    /// Bytes that arrived within `timeout` seconds; [] when the peer closed; nil on time-out.
    static func receive(_ fd: Int32, timeout: Double) -> [UInt8]? {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, Int32(max(0, timeout) * 1000)) > 0 else { return nil }
        var buf = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &buf, buf.count, 0)
        return n <= 0 ? [] : Array(buf[0..<n])
    }

    /// Reads until `enough` says so, the peer closes, or `timeout` passes.
    static func read(_ fd: Int32, timeout: Double, until enough: ([UInt8]) -> Bool) -> [UInt8] {
        var got: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while !enough(got), Date() < deadline {
            guard let b = receive(fd, timeout: deadline.timeIntervalSinceNow), !b.isEmpty else { break }
            got += b
        }
        return got
    }

    /// The first protocol frames in `bytes`.
    static func messages(_ bytes: [UInt8]) -> [Message] {
        var d = FrameDecoder()
        d.feed(bytes)
        var out: [Message] = []
        while let f = try? d.next(), let m = try? Message.decode(f, sentBy: .server) { out.append(m) }
        return out
    }

    /// This process's resident memory, in bytes (the service runs in it).
    static func residentBytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
        }
        return 0
    }

    /// Sets this process's soft descriptor limit (within the hard one); returns the old one.
    @discardableResult
    static func setDescriptorLimit(_ n: Int) -> Int {
        var r = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &r)
        let old = Int(r.rlim_cur)
        r.rlim_cur = rlim_t(min(UInt64(n), UInt64(r.rlim_max)))
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &r)
        return old
    }

    /// A WebSocket upgrade request for `/ws` on `port`, with `origin` if given.
    static func upgradeRequest(port: Int, origin: String?) -> [UInt8] {
        var r = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        r += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        if let origin { r += "Origin: \(origin)\r\n" }
        return Array((r + "\r\n").utf8)
    }

    /// The status code of an HTTP response's first line (0 if none).
    static func status(_ bytes: [UInt8]) -> Int {
        let line = String(decoding: bytes.prefix(while: { $0 != 13 }), as: UTF8.self)
        let parts = line.split(separator: " ")
        return parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
    }

    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 { return i + 4 }
        return nil
    }
}
