import Foundation
import Glibc
import LecternCore
import LecternService
import LecternTestSupport

/// Issue 12's figures: what one hostile peer can cost the service at most. A service in
/// this process (the web remote on): its resident memory and descriptors before, during
/// and after a peer that pipelines requests on the web port and never reads, and a flood
/// of idle connections from one address and from twenty.
func runHostileBenchmarks() throws {
    let h = try ServiceHarness(webRemote: true)
    guard let web = h.service.httpPort else { throw Fixtures.ToolError(description: "no web remote") }
    func rss() -> Int {
        let s = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        return s.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }.flatMap { Int($0.split(separator: " ")[1]) }.map { $0 * 1024 } ?? 0
    }
    func descriptors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0 }
    func connect(_ port: Int, from source: String) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var local = sockaddr_in(), remote = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok =
            withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } } == 0
            && withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, size) } } == 0
        if !ok { close(fd) }
        return ok ? fd : nil
    }
    func mib(_ b: Int) -> String { String(format: "%.1f MiB", Double(b) / 1048576) }

    // MARK: a peer pipelining GET /lectern.js, never reading
    let before = rss()
    var peak = before, sent = 0
    let request = Array("GET /lectern.js HTTP/1.1\r\nHost: 127.0.0.1:\(web)\r\n\r\n".utf8)
    let burst = Array([[UInt8]](repeating: request, count: 450_000 / request.count).joined())
    if let fd = connect(web, from: "127.0.0.1") {
        for _ in 0..<40 {
            let n = burst.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            peak = max(peak, rss())
            if n <= 0 { break }
            sent += n
        }
        let t0 = MonotonicClock.now()
        try? eventually("the pipelining peer closed", timeout: 20, interval: 0.1) {
            peak = max(peak, rss())
            return h.service.connectionCounts.open == 0
        }
        print("hostile: a peer pipelining GET /lectern.js and never reading (\(sent) bytes of requests taken):")
        print("  resident memory +\(mib(peak - before)) at most; closed by the service after \(String(format: "%.1f", MonotonicClock.now() - t0)) s")
        close(fd)
    }

    // MARK: idle connections, from one address and from twenty
    var limit = rlimit()
    getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    let oldLimit = limit.rlim_cur
    limit.rlim_cur = min(limit.rlim_max, 8192)
    setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    defer {
        limit.rlim_cur = oldLimit
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }
    for addresses in [1, 20] {
        let fd0 = descriptors(), mem0 = rss()
        var held: [Int32] = []
        for i in 0..<2000 {
            if let fd = connect(i % 2 == 0 ? h.port : web, from: "127.0.0.\(2 + i % addresses)") { held.append(fd) }
        }
        // What the service holds: every accepted connection is a descriptor in this process,
        // the flood's own 2000 client ends aside.
        var serverSide = 0
        try? eventually("the service to settle", timeout: 5, interval: 0.1) {
            serverSide = h.service.connectionCounts.open
            return descriptors() - fd0 - held.count <= serverSide + 64
        }
        let during = rss() - mem0
        print("hostile: 2000 idle connections from \(addresses) address\(addresses == 1 ? "" : "es") (half per port):")
        print(
            "  the service holds \(serverSide) of them (limits \(h.service.config.maxConnectionsPerAddress)/address, \(h.service.config.maxConnections) in all); resident memory +\(mib(during))"
        )
        for fd in held { close(fd) }
        try? eventually("the flood gone", timeout: 10, interval: 0.1) { h.service.connectionCounts.open == 0 }
    }
}
