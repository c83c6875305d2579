import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol
import LecternService
import LecternTestSupport

/// Issue 19's TLS: what encryption costs a device, against the same room in plain (the
/// reference), interleaved round by round: connect to hello (the TLS handshake and the
/// first frame), and a 64 MiB upload's throughput.
func runTLSBenchmarks(rounds: Int) throws {
    func room(_ name: String, tls: Bool) throws -> Service {
        var c = Config.testRoom(
            dataDir: Fixtures.tempDir(name) + "/data", room: "Bench", floor: .open,
            passcode: BenchRoom.presenterPass, moderatorPasscode: BenchRoom.moderatorPass)
        c.maxConnectionsPerAddress = 1024
        c.diskQuotaMB = 8192
        c.tls = tls
        var o = Service.Options(config: c)
        o.host = "127.0.0.1"
        return try Service.start(options: o)
    }
    let secure = try room("tlsbench-tls", tls: true), plain = try room("tlsbench-plain", tls: false)
    defer {
        secure.stop()
        plain.stop()
    }
    let pin = ClientTLS.pinned(secure.tlsIdentity!.fingerprint)
    var tlsHello: [Double] = [], plainHello: [Double] = []
    for _ in 0..<(rounds * 40) {
        var t0 = MonotonicClock.now()
        try LecternConnection(host: "127.0.0.1", port: secure.port, tls: pin).close()
        tlsHello.append(MonotonicClock.now() - t0)
        t0 = MonotonicClock.now()
        try LecternConnection(host: "127.0.0.1", port: plain.port).close()
        plainHello.append(MonotonicClock.now() - t0)
    }
    print("connect to hello, TLS 1.3 (P-256 self-signed, pinned) against plain, \(tlsHello.count) connections each:")
    print(
        "  TLS p50 \(ms(percentile(tlsHello, 0.5)))  p99 \(ms(percentile(tlsHello, 0.99)))   plain p50 \(ms(percentile(plainHello, 0.5)))  p99 \(ms(percentile(plainHello, 0.99)))   ratio p50 \(String(format: "%.1f", percentile(tlsHello, 0.5) / percentile(plainHello, 0.5)))×"
    )

    let dir = Fixtures.tempDir("tlsbench-upload")
    var tlsRate: [Double] = [], plainRate: [Double] = []
    for r in 0..<max(2, rounds) {
        // A fresh file each round: the store already has the last one (it would not be sent).
        // A valid PDF carrying a big stream (as ProtocolBench's), so it is stored as a PDF.
        var bytes = [UInt8](repeating: 0, count: 64 << 20)
        for i in stride(from: 0, to: bytes.count, by: 4096) { bytes[i] = UInt8(truncatingIfNeeded: i >> 12 &+ r) }
        let file = bigPDF(stream: bytes)
        let path = dir + "/blob-\(r).pdf"
        try file.write(to: URL(fileURLWithPath: path))
        for (service, tls) in [(secure, true), (plain, false)] {
            let c = try LecternConnection(host: "127.0.0.1", port: service.port, tls: tls ? pin : nil)
            try c.register(name: "bench-\(r)", role: .presenter, passcode: BenchRoom.presenterPass)
            let t0 = MonotonicClock.now()
            _ = try c.upload(path: path)
            let rate = Double(file.count) / (MonotonicClock.now() - t0) / 1e6
            if tls { tlsRate.append(rate) } else { plainRate.append(rate) }
            c.close()
        }
    }
    print("64 MiB upload, TLS against plain, \(tlsRate.count) each:")
    print(
        "  TLS p50 \(String(format: "%.0f", percentile(tlsRate, 0.5))) MB/s   plain p50 \(String(format: "%.0f", percentile(plainRate, 0.5))) MB/s   ratio \(String(format: "%.2f", percentile(tlsRate, 0.5) / percentile(plainRate, 0.5)))"
    )
}
