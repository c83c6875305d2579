import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol
import LecternService
import LecternTestSupport

/// Issue 25's figures for findings 1 and 4, in a room with TLS on as it ships: a 48 MB deck
/// downloaded over HTTPS by 32 slow readers and 8 that never read, and the meeting record
/// asked for by a moderator who never reads: the service's resident memory before, at
/// most during and after, and the floor holder's pings meanwhile.
func runHostileHTTPBenchmarks() throws {
    let h = try ServiceHarness(floor: .open, webRemote: true) { $0.tls = true }
    guard let web = h.service.httpPort, let fp = h.service.tlsIdentity?.fingerprint else { throw Fixtures.ToolError(description: "no HTTPS") }
    func mib(_ b: Int) -> String { String(format: "%.1f MiB", Double(b) / 1048576) }
    func join(_ name: String, _ role: Role = .presenter) throws -> LecternConnection {
        let c = try LecternConnection(host: "127.0.0.1", port: h.port, tls: .pinned(fp))
        try c.register(name: name, role: role, passcode: role == .moderator ? ServiceHarness.moderatorPass : ServiceHarness.presenterPass)
        return c
    }
    let holder = try join("Ana")
    _ = try holder.requestFloor()

    // MARK: the HTTPS download under slow readers
    let deck = try Fixtures.largeDeck(padding: 48 << 20, in: h.dir)
    try holder.present(try holder.upload(path: deck).content, page: 1)
    _ = try holder.request(.audienceSet(.allowDownload))
    var path: String?
    try eventually("the download's address") {
        path = try holder.state().audience?.downloadURL
        return path != nil
    }
    let request = Array("GET \(path!) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
    let quiet = pingTimes(holder) { Thread.sleep(forTimeInterval: 3) }   // the quiet room's pings, for comparison
    let before = Footprint.residentBytes()
    var peak = before
    var slow: [TLSProbe] = [], silent: [TLSProbe] = []
    let attacked = try pingTimes(holder) {
        for i in 0..<32 { slow.append(try TLSProbe(port: web, from: "127.0.0.\(10 + i % 8)", fingerprint: fp, keep: false)) }
        for _ in 0..<8 { silent.append(try TLSProbe(port: web, from: "127.0.0.30", fingerprint: fp, keep: false)) }
        for p in slow + silent { p.send(request) }
        let end = MonotonicClock.now() + 10
        while MonotonicClock.now() < end {
            for p in slow { p.readOnce() }
            peak = max(peak, Footprint.residentBytes())
            Thread.sleep(forTimeInterval: 0.02)   // 16 KiB per reader every 20 ms
        }
    }
    let read = slow.map(\.receivedCount).reduce(0, +)
    for p in slow + silent { p.close() }
    try? eventually("the downloads gone", timeout: 10, interval: 0.1) { h.service.connectionCounts.open <= 1 }
    let after = Footprint.residentBytes()
    print("hostile-https: a 48 MB deck over HTTPS, 32 slow readers (16 KiB / 20 ms each) and 8 that never read, 10 s:")
    print("  resident memory \(mib(before)) before, +\(mib(peak - before)) at most, \(mib(after)) after; \(mib(read)) read by the slow readers")
    print("  floor holder's ping: quiet p50 \(fms(quiet.p50)) p99 \(fms(quiet.p99)); under the downloads p50 \(fms(attacked.p50)) p99 \(fms(attacked.p99)) (\(attacked.lost) lost)")

    // MARK: the record, asked for and never read
    let noise = try holder.upload(path: try Fixtures.noiseDeck(pages: 12, in: h.dir)).content
    for n in 1...12 { try holder.present(noise, page: UInt32(n)) }
    try eventually("the record has every page", timeout: 30) { (try holder.state().record?.pages ?? 0) >= 13 }
    let warm = try join("Mo", .moderator)
    let size = try warm.meetingRecord().pdf.count
    warm.close()
    let probe = try TLSProbe(port: h.port, fingerprint: fp, keep: true)
    let hello = Hostile(probe.read(timeout: 10) { !Hostile.frames($0).isEmpty }).hello
    guard let hello, let kdf = hello.parameters(for: .moderator) else { throw Fixtures.ToolError(description: "no hello") }
    let key = PasscodeHash.deriveKey(passcode: ServiceHarness.moderatorPass, salt: kdf.salt, rounds: kdf.rounds)
    let proof = RegisterProof.compute(key: key, challenge: hello.challenge, role: .moderator, name: "Mo2", resumeToken: nil)
    probe.send(Message.register(RegisterRequest(role: .moderator, proof: proof, resumeToken: nil, name: "Mo2")).encode(tag: 1, deviceID: 0xFF))
    var device: UInt8?
    probe.read(timeout: 10) { b in
        for m in Hostile.frames(b) { if case .registerOK(let ok) = m { device = ok.deviceID } }
        return device != nil
    }
    guard let device else { throw Fixtures.ToolError(description: "not registered") }
    let r0 = Footprint.residentBytes()
    var rPeak = r0
    let t0 = MonotonicClock.now()
    let during = try pingTimes(holder) {
        probe.send(Message.recordRequest.encode(tag: 2, deviceID: device))
        var n = 0
        try eventually("the moderator who doesn't read dropped", timeout: 300, interval: 0.1) {
            n += 1
            if n % 10 == 0 { probe.send(Message.ping(nonce: 1).encode(tag: 3, deviceID: device)) }
            rPeak = max(rPeak, Footprint.residentBytes())
            return h.service.connectionCounts.open <= 1   // the holder's (the probe doesn't read: it can't see its close)
        }
    }
    print("hostile-https: the meeting record (\(mib(size)), 13 pages) asked for by a moderator who never reads:")
    print(
        "  resident memory \(mib(r0)) before, +\(mib(rPeak - r0)) at most, \(mib(Footprint.residentBytes())) after; dropped after \(String(format: "%.1f", MonotonicClock.now() - t0)) s"
    )
    print("  floor holder's ping meanwhile p50 \(fms(during.p50)) p99 \(fms(during.p99)) (\(during.lost) lost)")
}

private func fms(_ v: Double) -> String { v.isFinite ? String(format: "%.1f ms", v) : "-" }

/// The frames at the start of some bytes, decoded (the bench has no client logic here).
private struct Hostile {
    let messages: [Message]
    init(_ bytes: [UInt8]) { messages = Hostile.frames(bytes) }
    var hello: Hello? { messages.compactMap { if case .hello(let x) = $0 { return x } else { return nil } }.first }
    static func frames(_ bytes: [UInt8]) -> [Message] {
        var d = FrameDecoder()
        d.feed(bytes)
        var out: [Message] = []
        while let f = try? d.next(), let m = try? Message.decode(f, sentBy: .server) { out.append(m) }
        return out
    }
}

/// Pings on `c` every 50 ms while `body` runs: p50, p99 (ms) and how many went unanswered.
private func pingTimes(_ c: LecternConnection, during body: () throws -> Void) rethrows -> (p50: Double, p99: Double, lost: Int) {
    let stop = Shared(false), times = Shared<[Double]>([])
    let done = DispatchGroup()
    done.enter()
    Thread.detachNewThread {
        var n: UInt32 = 1
        while !stop.value {
            let t = MonotonicClock.now()
            let ms = (try? c.request(.ping(nonce: n))) == nil ? Double.infinity : (MonotonicClock.now() - t) * 1000
            times.modify { $0.append(ms) }
            n += 1
            Thread.sleep(forTimeInterval: 0.05)
        }
        done.leave()
    }
    defer {
        stop.value = true
        done.wait()
    }
    try body()
    stop.value = true
    done.wait()
    let all = times.value.sorted(), ok = all.filter(\.isFinite)
    func pct(_ p: Double) -> Double { ok.isEmpty ? .infinity : ok[min(ok.count - 1, Int(Double(ok.count - 1) * p))] }
    return (pct(0.5), pct(0.99), all.count - ok.count)
}
