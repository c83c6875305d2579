import Foundation
import LecternClient
import LecternCore
import LecternProtocol
import LecternService
import LecternTestSupport

/// Issue 17's figures: 250 viewers connected (raw sockets that read frame headers only, so
/// what is measured is the service): a page turn reaching every viewer, 250 answers in a
/// burst counted and pushed to the presenter, and the service's memory with 250 viewers.
func runAudienceBenchmarks(rounds: Int) throws {
    let dir = Fixtures.tempDir("audiencebench")
    let room = try BenchRoom(dir: dir, presenterName: "presenter")
    let service = room.service
    defer { service.stop() }
    let a = room.presenter
    let deck = try Fixtures.numberedDeck(count: 12, in: dir)
    let id = try a.upload(path: deck).content
    try a.present(id)

    let before = Footprint.residentBytes()
    let params = a.hello.parameters(for: .viewer)!
    let key = PasscodeHash.deriveKey(passcode: BenchRoom.presenterPass, salt: params.salt, rounds: params.rounds)
    var viewers: [RawDevice] = []
    for i in 0..<AudienceLimits.maxViewers {
        viewers.append(try RawDevice(port: service.port, name: i % 2 == 0 ? "" : "viewer \(i)", key: key, role: .viewer))
        if i % 25 == 0 { for v in viewers { v.pump(timeout: 0) } }
    }
    for v in viewers { v.pump(timeout: 0.01) }
    let after = Footprint.residentBytes()
    print(
        "audience: \(viewers.count) viewers connected; the service's resident memory +\(String(format: "%.1f", Double(after - before) / 1_048_576)) MiB (\(String(format: "%.1f", Double(after - before) / Double(viewers.count) / 1024)) KiB a viewer)"
    )

    // Page turns: control → every viewer has the state with the new page.
    var each: [Double] = [], all: [Double] = []
    var page = 1
    for i in 0..<(rounds * 4) {
        for v in viewers { v.pump(timeout: 0); v.statesSeen = 0 }
        let forward = (i / 8) % 2 == 0
        if (forward && page == 12) || (!forward && page == 1) { continue }
        let t0 = MonotonicClock.now()
        try a.control(forward ? .next : .prev)
        page += forward ? 1 : -1
        var last = t0
        for v in viewers {
            let deadline = MonotonicClock.now() + 5
            while v.statesSeen == 0, MonotonicClock.now() < deadline { v.pump(timeout: 0.05) }
            each.append(v.lastStateAt - t0)
            last = max(last, v.lastStateAt)
        }
        all.append(last - t0)
    }
    print("page turn → each of \(viewers.count) viewers has the new page's state (TCP, loopback; the frame on the wall first), \(all.count) turns:")
    print("  per viewer p50 \(ms(percentile(each, 0.5)))  p99 \(ms(percentile(each, 0.99)))  (goal p99 <= 100 ms)")
    print("  the last viewer p50 \(ms(percentile(all, 0.5)))  p99 \(ms(percentile(all, 0.99)))")

    // 250 answers in a burst: sent as fast as the sockets take them; the time until the
    // presenter's pushed state counts all of them, and the counts exact.
    var burst: [Double] = []
    for r in 0..<rounds {
        _ = try a.request(.pollAsk(PollDraft(question: "Round \(r)?", kind: .choice, answers: ["A", "B", "C", "D"])))
        for v in viewers { v.pump(timeout: 0) }
        let t0 = MonotonicClock.now()
        for (i, v) in viewers.enumerated() {
            v.socket.send(Message.pollAnswer(poll: 0, .choice(i % 4)).encode(tag: 9, deviceID: 0xFF))
        }
        let s = try a.waitForState(timeout: 10) { $0.audience?.poll?.total == viewers.count && $0.audience?.poll?.question == "Round \(r)?" }
        burst.append(MonotonicClock.now() - t0)
        let expected = (0..<4).map { k in (0..<viewers.count).filter { $0 % 4 == k }.count }
        if s.audience?.poll?.counts != expected { print("  WRONG counts \(String(describing: s.audience?.poll?.counts)), expected \(expected)") }
        for v in viewers { v.pump(timeout: 0) }
    }
    print("\(viewers.count) poll answers sent at once → the presenter's state shows all of them, counts exact, \(burst.count) rounds:")
    print("  p50 \(ms(percentile(burst, 0.5)))  max \(ms(burst.max() ?? 0))  (goal: within one second)")
    for v in viewers { v.close() }
}
