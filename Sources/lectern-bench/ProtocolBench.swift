import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol
import LecternService
import LecternTestSupport

/// Issue 3's figures: round trips, page turns to the frame on the virtual display, upload
/// throughput against a plain TCP copy, and a state change reaching 254 devices; and the
/// page previews of the web remote (issue 7).
func runProtocolBenchmarks(rounds: Int) throws {
    let dir = Fixtures.tempDir("protobench")
    let room = try BenchRoom(dir: dir, presenterName: "bench") {
        $0.diskQuotaMB = 8192
        $0.maxUploadMB = 2048
    }
    let service = room.service
    defer { service.stop() }
    let a = room.presenter

    // Round trips.
    var rtt: [Double] = []
    for _ in 0..<(rounds * 100) {
        let t0 = MonotonicClock.now()
        _ = try a.request(.stateRequest)
        rtt.append(MonotonicClock.now() - t0)
    }
    print("command round trip (state-request, loopback), \(rtt.count) requests:")
    print("  p50 \(ms(percentile(rtt, 0.5)))  p99 \(ms(percentile(rtt, 0.99)))")

    // Page turns: next → control-ok, which the service sends once the frame is on the output.
    let deck = try Fixtures.numberedDeck(count: 12, in: dir)
    let id = try a.upload(path: deck).content
    try a.present(id)
    var turns: [Double] = []
    var page = 1
    for i in 0..<(rounds * 10) {
        service.stage.compositor.waitForPrerender()
        // A presenter's pause, varied so turns land anywhere in the refresh period.
        Fixtures.wait(seconds: Double((i * 7) % 17) / 1000)
        let forward = (i / 10) % 2 == 0
        if (forward && page == 12) || (!forward && page == 1) { continue }
        let t0 = MonotonicClock.now()
        try a.control(forward ? .next : .prev)
        turns.append(MonotonicClock.now() - t0)
        page += forward ? 1 : -1
    }
    print("page turn to a prerendered neighbour, command to frame presented (60 Hz virtual display), \(turns.count) turns:")
    print("  p50 \(ms(percentile(turns, 0.5)))  p99 \(ms(percentile(turns, 0.99)))  (one refresh = 16.67 ms)")

    // The web remote's next-slide thumbnail: page-preview at 480 px, first asked (rendered)
    // and asked again (from the page cache), request to the last PNG byte.
    var cold: [Double] = [], warm: [Double] = []
    for p in 1...12 {
        for list in [0, 1] {
            let t0 = MonotonicClock.now()
            _ = try a.pagePreview(id, page: UInt32(p), maxWidth: 480)
            if list == 0 { cold.append(MonotonicClock.now() - t0) } else { warm.append(MonotonicClock.now() - t0) }
        }
    }
    print("page preview (480x270 PNG, the web remote's next slide), \(cold.count) pages:")
    print("  rendered  p50 \(ms(percentile(cold, 0.5)))  p99 \(ms(percentile(cold, 0.99)))")
    print("  cached    p50 \(ms(percentile(warm, 0.5)))  p99 \(ms(percentile(warm, 0.99)))")

    // Upload throughput against a plain TCP copy of the same bytes into a file.
    let size = 64 << 20
    var bytes = [UInt8](repeating: 0, count: size)
    // Incompressible bytes from a fast generator (xorshift64*), seeded from the system's.
    var x = UInt64.random(in: 1...UInt64.max)
    bytes.withUnsafeMutableBytes { raw in
        for i in stride(from: 0, to: size, by: 8) {
            x ^= x >> 12; x ^= x << 25; x ^= x >> 27
            raw.storeBytes(of: x &* 0x2545_F491_4F6C_DD1D, toByteOffset: i, as: UInt64.self)
        }
    }
    var ups: [Double] = [], plains: [Double] = [], transfers: [Double] = []
    for r in 0..<max(7, rounds) {
        // A fresh file each round (the store deduplicates): a valid PDF whose one page
        // carries a big stream of random bytes (like a scanned slide's image), so it opens
        // the way a real large PDF does.
        bytes[0] = UInt8(r)
        let file = bigPDF(stream: bytes)
        let path = dir + "/up-\(r).pdf"
        try file.write(to: URL(fileURLWithPath: path))
        var transferStart = 0.0
        let t0 = MonotonicClock.now()
        _ = try a.upload(path: path) { sent, _ in if transferStart == 0 { transferStart = MonotonicClock.now() } }
        let t1 = MonotonicClock.now()
        ups.append(Double(file.count) / (t1 - t0))
        transfers.append(Double(file.count) / (t1 - transferStart))
        plains.append(try plainCopy(path: path, into: dir + "/plain-\(r)"))
    }
    // Each round's ratio is against the plain copy run right after it (the machine's noise
    // moves both); the figure is the median of those ratios.
    let up = median(ups), plain = median(plains), transfer = median(transfers)
    let transferRatio = median(zip(transfers, plains).map { $0 / $1 }), upRatio = median(zip(ups, plains).map { $0 / $1 })
    print("upload, \(size / 1_000_000) MB PDF over loopback, against a plain TCP copy into an fsync'd file (\(String(format: "%.0f", plain / 1e6)) MB/s), \(ups.count) rounds:")
    print(String(format: "  transfer (chunks, store, SHA-256 check, fsync): %.0f MB/s, ratio %.2f (median of rounds; goal >= 0.8)", transfer / 1e6, transferRatio))
    print(String(format: "  whole command (+ the client hashing the file first): %.0f MB/s, ratio %.2f", up / 1e6, upRatio))

    // 254 devices: a state change reaching all of them. The listeners are plain sockets
    // that only read frame headers (and answer pings), so what is measured is the
    // service's fan-out, not 253 JSON decoders sharing this process's one core.
    _ = try a.request(.unregister)   // leaves for good (a holder that just drops stays in its grace period)
    let params = try LecternConnection(host: "127.0.0.1", port: service.port, tls: room.clientTLS).hello.presenter!
    let key = PasscodeHash.deriveKey(passcode: BenchRoom.presenterPass, salt: params.salt, rounds: params.rounds)
    var devices: [RawDevice] = []
    for i in 0..<253 {
        devices.append(try RawDevice(port: service.port, name: "d\(i)", key: key, tls: room.fingerprint))
        for d in devices { d.pump(timeout: 0) }
    }
    let mod = try LecternConnection(host: "127.0.0.1", port: service.port, tls: room.clientTLS)
    try mod.register(name: "mod", role: .moderator, passcode: BenchRoom.moderatorPass)
    var fanout: [Double] = []
    for i in 0..<(rounds * 4) {
        for d in devices { d.pump(timeout: 0); d.statesSeen = 0 }
        let t0 = MonotonicClock.now()
        try mod.moderate(i % 2 == 0 ? .dndOn : .dndOff, target: 0)
        var last = t0
        for d in devices {
            let deadline = MonotonicClock.now() + 5
            while d.statesSeen == 0, MonotonicClock.now() < deadline { d.pump(timeout: 0.05) }
            last = max(last, d.lastStateAt)
        }
        fanout.append(last - t0)
    }
    print("state change reaching all \(devices.count + 1) devices (request sent to the last device's socket holding the state frame), \(fanout.count) changes:")
    print("  p50 \(ms(percentile(fanout, 0.5)))  p99 \(ms(percentile(fanout, 0.99)))  (goal p99 <= 50 ms)")
}

/// Bytes per second of a plain TCP copy of `path` over loopback into a file (fsync'd).
func plainCopy(path: String, into out: String) throws -> Double {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, len) } }
    _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &len) } }
    listen(listener, 1)
    let done = DispatchSemaphore(value: 0)
    let t0 = MonotonicClock.now()
    Thread.detachNewThread {
        let fd = accept(listener, nil, nil)
        let file = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var buf = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = recv(fd, &buf, buf.count, 0)
            if n <= 0 { break }
            _ = buf.withUnsafeBytes { write(file, $0.baseAddress, n) }
        }
        fsync(file); close(file); close(fd)
        done.signal()
    }
    let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, len) } }
    data.withUnsafeBytes { raw in
        var off = 0
        while off < raw.count {
            let n = send(s, raw.baseAddress! + off, min(1 << 20, raw.count - off), 0)
            if n <= 0 { break }
            off += n
        }
    }
    close(s)
    done.wait()
    let t = MonotonicClock.now() - t0
    close(listener)
    return Double(data.count) / t
}

/// A valid one-page PDF around `stream` (written uncompressed, with its exact /Length and a
/// correct cross-reference table).
func bigPDF(stream: [UInt8]) -> Data {
    var out = Data("%PDF-1.5\n%\u{00E2}\u{00E3}\n".utf8)
    var offsets: [Int] = []
    func obj(_ body: Data) { offsets.append(out.count); out.append(body) }
    obj(Data("1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n".utf8))
    obj(Data("2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n".utf8))
    obj(Data("3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 720 540] /Resources << >> /Contents 4 0 R >>\nendobj\n".utf8))
    var s = Data("4 0 obj\n<< /Length \(stream.count) >>\nstream\n".utf8)
    s.append(contentsOf: stream)
    s.append(Data("\nendstream\nendobj\n".utf8))
    obj(s)
    let xref = out.count
    var table = "xref\n0 5\n0000000000 65535 f \n"
    for o in offsets { table += String(format: "%010d 00000 n \n", o) }
    table += "trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
    out.append(Data(table.utf8))
    return out
}
