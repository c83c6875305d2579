import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol
import LecternService
import LecternTestSupport

/// Issue 12's figures for one connection's budget: a registered device's round trip with and without one peer flooding
/// small frames (the ratio), and what one hostile peer costs at most in memory and
/// descriptors (this process runs the service).
func runPeerBudgetBenchmarks(rounds: Int) throws {
    let h = try ServiceHarness(floor: .open)
    let ana = try h.presenter("bench")
    func roundTrips(_ n: Int) throws -> [Double] {
        try (0..<n).map { _ in
            let t0 = MonotonicClock.now()
            _ = try ana.state()
            return MonotonicClock.now() - t0
        }
    }
    let quiet = try roundTrips(rounds * 100)

    // One peer without a passcode sending pings as fast as it can (and reading its pongs).
    let flood = try PingFlood(port: h.port, tls: h.fingerprint)
    let flooded = try roundTrips(rounds * 100)
    flood.stop()
    print("registered device's round trip (state-request), \(quiet.count) requests each:")
    print("  quiet   p50 \(ms(percentile(quiet, 0.5)))  p99 \(ms(percentile(quiet, 0.99)))")
    print("  flooded p50 \(ms(percentile(flooded, 0.5)))  p99 \(ms(percentile(flooded, 0.99)))  (one peer sending pings without pause)")
    print(
        String(
            format: "  ratio flooded/quiet: p50 %.2f, p99 %.2f (goal: p99 well under 500 ms)",
            percentile(flooded, 0.5) / percentile(quiet, 0.5), percentile(flooded, 0.99) / percentile(quiet, 0.99)))

    // What one hostile peer costs at most: each attack alone, memory and descriptors before and after.
    func cost(_ what: String, _ attack: () throws -> Void) rethrows {
        let grew = try Footprint.peakGrowth(during: attack)
        print(String(format: "  %@: memory +%.1f MB at most, descriptors +%d at most", what, Double(grew.bytes) / 1_048_576, grew.descriptors))
    }
    print("one hostile peer at most costs:")
    let key = try { () throws -> [UInt8] in
        let c = try h.connect()
        let p = c.hello.presenter!
        c.close()
        return PasscodeHash.deriveKey(passcode: ServiceHarness.presenterPass, salt: p.salt, rounds: p.rounds)
    }()
    try cost("8 MiB of requests without a passcode, never reading") {
        let s = try h.raw()
        var block: [UInt8] = []
        for _ in 0..<((8 << 20) / 8) { block += Message.stateRequest.encode(tag: 1, deviceID: 0xFF) }
        s.send(block)
        while let b = s.receive(timeout: 10), !b.isEmpty {}
        s.close()
    }
    try cost("a registered peer sending pings, never reading (dropped once its output budget is full for 5 s)") {
        let d = try RawDevice(port: h.port, name: "sink", key: key, tls: h.fingerprint)
        var block: [UInt8] = []
        for _ in 0..<100_000 { block += Message.ping(nonce: 1).encode(tag: 1, deviceID: d.id) }
        var n = 0
        while n < 400 && d.socket.send(block) { n += 1 }
        d.close()
    }
    try cost("1500 screenshot requests, never reading") {
        let d = try RawDevice(port: h.port, name: "shots", key: key, tls: h.fingerprint)
        var block: [UInt8] = []
        for _ in 0..<1500 { block += Message.screenshotRequest(maxWidth: 0, maxHeight: 0).encode(tag: 1, deviceID: d.id) }
        d.socket.send(block)
        Fixtures.wait(seconds: 3)   // the attack lasts 3 s: the service makes what it makes meanwhile
        d.close()
    }
    try cost("1000 upload-begins on one connection") {
        let d = try RawDevice(port: h.port, name: "begins", key: key, tls: h.fingerprint)
        var block: [UInt8] = []
        for i in 0..<1000 {
            var id = [UInt8](repeating: 0, count: 32)
            id[0] = UInt8(i & 0xFF)
            id[1] = UInt8(i >> 8)
            block += Message.uploadBegin(UploadBegin(content: ContentID(bytes: id)!, size: 1000, kind: .pdf, proof: nil, name: "f.pdf"))
                .encode(tag: 1, deviceID: d.id)
        }
        d.socket.send(block)
        Fixtures.wait(seconds: 2)   // the attack lasts 2 s
        d.close()
    }
}
