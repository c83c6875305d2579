import Foundation
import Glibc
import LecternModel
import LecternSystem
import LecternService
import LecternTestSupport

/// Issue 12's figures: what one hostile peer can cost the service at most. A service in
/// this process (the web remote on): its resident memory and descriptors before, during
/// and after a peer that pipelines requests on the web port and never reads, and a flood
/// of idle connections from one address and from twenty.
func runHostileBenchmarks() throws {
    let h = try ServiceHarness(webRemote: true)
    guard let web = h.service.httpPort else { throw Fixtures.ToolError(description: "no web remote") }
    func mib(_ b: Int) -> String { String(format: "%.1f MiB", Double(b) / 1048576) }

    // MARK: a peer pipelining GET /lectern.css (the largest file at the root), never reading
    let before = Footprint.residentBytes()
    var peak = before, sent = 0
    let request = Array("GET /lectern.css HTTP/1.1\r\nHost: 127.0.0.1:\(web)\r\n\r\n".utf8)
    let burst = Array([[UInt8]](repeating: request, count: 450_000 / request.count).joined())
    if let peer = try? h.raw(port: web) {
        for _ in 0..<40 {
            let n = peer.sendNow(burst)
            peak = max(peak, Footprint.residentBytes())
            if n <= 0 { break }
            sent += n
        }
        let t0 = MonotonicClock.now()
        try? eventually("the pipelining peer closed", timeout: 20, interval: 0.1) {
            peak = max(peak, Footprint.residentBytes())
            return h.service.connectionCounts.open == 0
        }
        print("hostile: a peer pipelining GET /lectern.css and never reading (\(sent) bytes of requests taken):")
        print("  resident memory +\(mib(peak - before)) at most; closed by the service after \(String(format: "%.1f", MonotonicClock.now() - t0)) s")
        peer.close()
    }

    // MARK: idle connections, from one address and from twenty
    let oldLimit = Footprint.setDescriptorLimit(8192)
    defer { Footprint.setDescriptorLimit(oldLimit) }
    for addresses in [1, 20] {
        let fd0 = Footprint.openDescriptors(), mem0 = Footprint.residentBytes()
        var held: [RawSocket] = []
        for i in 0..<2000 {
            if let peer = try? h.raw(port: i % 2 == 0 ? h.port : web, from: "127.0.0.\(2 + i % addresses)") { held.append(peer) }
        }
        // What the service holds: every accepted connection is a descriptor in this process,
        // the flood's own 2000 client ends aside.
        var serverSide = 0
        try? eventually("the service to settle", timeout: 5, interval: 0.1) {
            serverSide = h.service.connectionCounts.open
            return Footprint.openDescriptors() - fd0 - held.count <= serverSide + 64
        }
        let during = Footprint.residentBytes() - mem0
        print("hostile: 2000 idle connections from \(addresses) address\(addresses == 1 ? "" : "es") (half per port):")
        print(
            "  the service holds \(serverSide) of them (limits \(h.service.config.maxConnectionsPerAddress)/address, \(h.service.config.maxConnections) in all); resident memory +\(mib(during))"
        )
        for peer in held { peer.close() }
        try? eventually("the flood gone", timeout: 10, interval: 0.1) { h.service.connectionCounts.open == 0 }
    }

    // Issue 25: the audience's attacks (HostileAudienceBench.swift).
    try runHostileAudienceBenchmarks()
    // Issue 25: the HTTPS download and the record under peers that read slowly or never
    // (HostileHTTPBench.swift).
    try runHostileHTTPBenchmarks()
}
