import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol
import LecternService
import LecternTestSupport

/// Issue 25's audience attacks (findings 2, 3, 6), over TLS as shipped: one host stuffing
/// polls and questions, 60 viewers asking for full-size previews of an image-heavy deck,
/// four drawers flooding ink before 100 viewers. For each: the service's resident memory
/// and threads (it runs in this process), the floor holder's page turn p50/p99, and the
/// connections dropped.
func runHostileAudienceBenchmarks() throws {
    try stuffingBench()
    try previewFloodBench()
    try inkFloodBench()
}

private struct AudienceAttackRoom {
    let h: ServiceHarness
    let holder: LecternConnection
    let deck: ContentID

    init(pdf: (String) throws -> String, tweak: @escaping (inout Config) -> Void = { _ in }) throws {
        h = try ServiceHarness(floor: .open) { c in
            c.tls = true
            c.audience = .open
            c.maxConnectionsPerAddress = 2048
            tweak(&c)
        }
        holder = try Self.connect(h)
        try holder.register(name: "Holder", role: .presenter, passcode: ServiceHarness.presenterPass)
        _ = try holder.requestFloor()
        deck = try holder.upload(path: try pdf(h.dir)).content
        try holder.present(deck, page: 1)
    }

    static func connect(_ h: ServiceHarness) throws -> LecternConnection {
        try LecternConnection(host: "127.0.0.1", port: h.port, tls: .pinned(h.service.tlsIdentity!.fingerprint))
    }

    func viewer() throws -> LecternConnection {
        let v = try Self.connect(h)
        try v.register(name: "", role: .viewer, key: [UInt8](repeating: 0, count: 32))
        return v
    }

    /// The holder turns to `page` and waits for its state: seconds.
    func turn(_ page: Int) throws -> Double {
        let t0 = MonotonicClock.now()
        try holder.present(deck, page: UInt32(page))
        _ = try holder.waitForState(timeout: 30) { $0.screen.page == page }
        return MonotonicClock.now() - t0
    }
}

private func threadCount() -> Int { ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).count }
private func mib(_ b: Int) -> String { String(format: "%.0f MiB", Double(b) / 1_048_576) }
private func ms(_ s: [Double]) -> String {
    let v = s.sorted()
    guard !v.isEmpty else { return "–" }
    return "p50 \(Int(v[v.count / 2] * 1000)) ms, p99 \(Int(v[min(v.count - 1, v.count * 99 / 100)] * 1000)) ms"
}

/// Finding 2: 200 fresh registrations from one host, each voting, asking and up-voting; 400
/// open-text answers more from fresh identities.
private func stuffingBench() throws {
    let r = try AudienceAttackRoom(pdf: { try Fixtures.numberedDeck(count: 4, in: $0) })
    _ = try r.holder.request(.pollAsk(PollDraft(question: "Which?", kind: .text)))
    let rss0 = Footprint.residentBytes()
    let t0 = MonotonicClock.now()
    var voices = 0, refused = 0, answers = 0, full = 0
    for i in 0..<600 {
        guard let v = try? AudienceAttackRoom.connect(r.h) else { continue }
        defer { v.close() }
        do { try v.register(name: "", role: .viewer, key: [UInt8](repeating: 0, count: 32)) } catch {
            refused += 1
            continue
        }
        voices += 1
        do {
            _ = try v.request(.pollAnswer(poll: 0, .text("\(i) " + String(repeating: "z", count: 190))))
            answers += 1
        } catch { full += 1 }
        _ = try? v.request(.questionAsk(text: "Stuffed \(i)?", named: false))
    }
    let s = try r.holder.state()
    let frame = Message.state(s).encode(tag: 0, deviceID: 0).count
    print("hostile audience: one host stuffing an open audience (600 fresh registrations in \(String(format: "%.1f", MonotonicClock.now() - t0)) s):")
    print(
        "  \(voices) voices (\(refused) told to wait), \(answers) open-text answers kept (\(full) refused), \(s.audience?.questionCount ?? 0) questions; "
            + "the presenters' state frame \(frame) B (limit \(ProtocolLimits.maxFrameLength) B); RSS +\(mib(Footprint.residentBytes() - rss0))")
    let turns = try (0..<10).map { try r.turn(2 + $0 % 2) }
    print("  the floor holder's page turn after it: \(ms(turns))")
}

/// Finding 3: 60 viewers asking for full-size previews of six photograph pages for 10 s,
/// two in flight each.
private func previewFloodBench() throws {
    let r = try AudienceAttackRoom(pdf: { try Fixtures.photoPagesDeck(6, in: $0) }) { $0.audienceNewPerAddress = 100 }
    _ = try r.holder.request(.audienceSet(.unlock))
    let viewers = try (0..<60).map { _ in try r.viewer() }
    let quiet = try (0..<6).map { try r.turn(1 + $0 % 2) }
    let rss0 = Footprint.residentBytes(), threads0 = threadCount()
    let stop = BenchFlag()
    let group = DispatchGroup()
    let deck = r.deck
    // Six threads drive ten viewers each, every viewer with its 2 previews in flight (120 at once).
    for t in 0..<6 {
        group.enter()
        Thread.detachNewThread {
            var round = 0
            while !stop.isSet {
                var asked: [(LecternConnection, UInt16)] = []
                for k in 0..<10 {
                    let v = viewers[t * 10 + k]
                    for j in 0..<2 {
                        let page = UInt32(1 + (t + k + j + round) % 6)
                        asked.append((v, v.send(.pagePreview(PagePreviewRequest(content: deck, page: page, maxWidth: 0, maxHeight: 0)))))
                    }
                }
                var refused = false
                for (v, tag) in asked {
                    do { _ = try v.image(replyingTo: tag) } catch { refused = true }
                }
                if refused { Thread.sleep(forTimeInterval: 0.1) }   // the attacker's pace after being told to wait
                round += 1
            }
            group.leave()
        }
    }
    var turns: [Double] = [], peakRSS = rss0, peakThreads = threads0, page = 3
    let until = MonotonicClock.now() + 10
    while MonotonicClock.now() < until {
        turns.append(try r.turn(page))
        page = page == 3 ? 4 : 3
        peakRSS = max(peakRSS, Footprint.residentBytes())
        peakThreads = max(peakThreads, threadCount())
    }
    stop.set()
    group.wait()
    let dropped = viewers.filter { (try? $0.state()) == nil }.count
    print("hostile audience: 60 viewers asking for full-size previews of an image-heavy deck for 10 s:")
    print(
        "  RSS \(mib(rss0)) → peak \(mib(peakRSS)), threads \(threads0) → peak \(peakThreads); the floor holder's page turn \(ms(turns)) (quiet: \(ms(quiet))); "
            + "connections dropped: \(dropped) viewers, floor holder \((try? r.holder.state()) == nil ? "dropped" : "kept")")
}

/// Finding 6: four drawers as fast as they can for 5 s before 100 viewers.
private func inkFloodBench() throws {
    let r = try AudienceAttackRoom(pdf: { try Fixtures.numberedDeck(count: 4, in: $0) }) {
        $0.inkEveryone = true
        $0.audienceNewPerAddress = 200
    }
    let viewers = try (0..<100).map { _ in try r.viewer() }
    let drawers = try (0..<4).map { i in
        let d = try AudienceAttackRoom.connect(r.h)
        try d.register(name: "Drawer \(i)", role: .presenter, passcode: ServiceHarness.presenterPass)
        return d
    }
    for v in viewers { _ = v.takeStatePushes() }
    let rss0 = Footprint.residentBytes(), threads0 = threadCount()
    let stop = BenchFlag()
    let group = DispatchGroup()
    let strokes = BenchCounter()
    for d in drawers {
        group.enter()
        Thread.detachNewThread {
            var i = 0
            while !stop.isSet {
                if (try? d.draw([InkPoint(px: Double(i % 90) / 100, py: 0.5), InkPoint(px: 0.5, py: 0.6)])) != nil { strokes.add() }
                if i % 20 == 19 { _ = try? d.request(.ink(.undo)) }
                i += 1
            }
            group.leave()
        }
    }
    var turns: [Double] = [], peakRSS = rss0, pushes = 0, page = 2
    let t0 = MonotonicClock.now()
    while MonotonicClock.now() < t0 + 5 {
        turns.append(try r.turn(page))
        page = page == 2 ? 3 : 2
        peakRSS = max(peakRSS, Footprint.residentBytes())
        pushes += viewers[0].takeStatePushes().count
    }
    stop.set()
    group.wait()
    let seconds = MonotonicClock.now() - t0
    pushes += viewers[0].takeStatePushes().count
    let dropped = viewers.filter { (try? $0.state()) == nil }.count
    print("hostile audience: 4 drawers flooding ink before 100 viewers for \(String(format: "%.1f", seconds)) s (\(strokes.value) strokes):")
    print(
        "  state pushes to a viewer: \(String(format: "%.1f", Double(pushes) / seconds)) a second; RSS +\(mib(peakRSS - rss0)), threads \(threads0) → \(threadCount()); "
            + "the floor holder's page turn \(ms(turns)); connections dropped: \(dropped) viewers, "
            + "floor holder \((try? r.holder.state()) == nil ? "dropped" : "kept")")
}
