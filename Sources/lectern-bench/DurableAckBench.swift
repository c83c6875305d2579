import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol
import LecternService
import LecternTestSupport
import Synchronization

/// Part of `LECTERN_BENCH_ONLY=ink`: what acknowledging only what is on disk costs (issue
/// 25, finding 9: a stroke-ok is sent once the state holding the stroke is fsynced).
/// stroke-ok latency over TLS as shipped, 200 strokes one after another, then four drawers
/// at once (grouped writes: one fsync answers several).
func runDurableAckBenchmark() throws {
    let h = try ServiceHarness(floor: .open) { $0.tls = true }
    guard let fingerprint = h.service.tlsIdentity?.fingerprint else { return print("durable acks: no TLS identity") }
    let tls = ClientTLS.pinned(fingerprint)
    func presenter(_ name: String) throws -> LecternConnection {
        let c = try LecternConnection(host: "127.0.0.1", port: h.port, tls: tls)
        try c.register(name: name, role: .presenter, passcode: ServiceHarness.presenterPass)
        return c
    }
    let a = try presenter("Ana")
    _ = try a.requestFloor()
    try a.present(try a.upload(path: try Fixtures.numberedDeck(count: 2, in: h.dir)).content)
    @Sendable func stroke(_ c: LecternConnection, _ i: Int) throws -> Double {
        let y = 0.05 + Double(i % 90) / 100
        let t0 = MonotonicClock.now()
        try c.draw([InkPoint(px: 0.1, py: y), InkPoint(px: 0.5, py: y), InkPoint(px: 0.9, py: y)])
        return (MonotonicClock.now() - t0) * 1000
    }
    var alone: [Double] = []
    for i in 0..<200 { alone.append(try stroke(a, i)) }
    let others = try (1...3).map { try presenter("Drawer \($0)") }
    for o in others { try a.inkAllow(o.deviceID) }
    let times = Mutex<[Double]>([])
    let group = DispatchGroup()
    for (n, c) in ([a] + others).enumerated() {
        DispatchQueue.global().async(group: group) {
            for i in 0..<50 {
                let ms = (try? stroke(c, n * 50 + i)) ?? .infinity
                times.withLock { $0.append(ms) }
            }
        }
    }
    group.wait()
    let together = times.withLock { $0 }.filter(\.isFinite)
    print("stroke-ok over TLS, acknowledged once on disk (fsync of state.json):")
    print(String(format: "  one drawer:   p50 %.2f ms, p99 %.2f ms (%d strokes)", median(alone), percentile(alone, 0.99), alone.count))
    print(String(format: "  four drawers: p50 %.2f ms, p99 %.2f ms (%d strokes)", median(together), percentile(together, 0.99), together.count))
}
