import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol
import LecternService
import LecternTestSupport
import Synchronization

/// Issue 17's figures, with 250 viewers as browsers are (§24): the protocol over WebSockets
/// on the web remote's port, the slide over HTTP with validators (`WebSocketViewer`). A
/// page turn reaching every viewer and every viewer having its image, the bytes a turn
/// costs a viewer, 250 answers in a burst counted and pushed to the presenter, and the
/// service's memory with 250 viewers.
func runAudienceBenchmarks(rounds: Int) throws {
    let dir = Fixtures.tempDir("audiencebench")
    let room = try BenchRoom(dir: dir, presenterName: "presenter") {
        $0.httpPort = 0
        $0.audienceNewPerAddress = AudienceLimits.maxViewers   // every viewer is 127.0.0.1
    }
    let service = room.service
    defer { service.stop() }
    guard let http = service.httpPort else { throw Fixtures.ToolError(description: "no web remote") }
    let a = room.presenter
    let pages = 12
    let deck = try Fixtures.numberedDeck(count: pages, in: dir)
    let id = try a.upload(path: deck).content
    try a.present(id)

    let before = Footprint.residentBytes()
    let params = a.hello.parameters(for: .viewer)!
    let key = PasscodeHash.deriveKey(passcode: BenchRoom.presenterPass, salt: params.salt, rounds: params.rounds)
    var viewers: [WebSocketViewer] = []
    for i in 0..<AudienceLimits.maxViewers {
        viewers.append(try WebSocketViewer(port: http, name: i % 2 == 0 ? "" : "viewer \(i)", key: key, tls: room.fingerprint))
        if i % 25 == 0 { for v in viewers { v.pump(timeout: 0) } }
    }
    for v in viewers { v.pump(timeout: 0.01) }
    let after = Footprint.residentBytes()
    print(
        "audience (WebSocket): \(viewers.count) viewers connected; the service's resident memory +\(String(format: "%.1f", Double(after - before) / 1_048_576)) MiB (\(String(format: "%.1f", Double(after - before) / Double(viewers.count) / 1024)) KiB a viewer)"
    )
    // Phones of three kinds: their quantised widths (§24.8).
    let widths = viewers.indices.map { [640, 960, 1280][$0 % 3] }

    /// Every viewer fetches the live page's image, 8 at a time (a phone each, on its own
    /// keep-alive connection); the time until the last has it, and bytes per viewer.
    final class Tally: Sendable {
        struct Sums {
            var last: Double, bytes = 0, statuses: [Int: Int] = [:]
        }
        let sums: Mutex<Sums>
        init(_ t0: Double) { sums = Mutex(Sums(last: t0)) }
        func add(_ f: WebSocketViewer.Fetch?, at now: Double) {
            let bytes = f?.bytes ?? 0, status = f?.status ?? 0
            sums.withLock {
                $0.last = max($0.last, now)
                $0.bytes += bytes
                $0.statuses[status, default: 0] += 1
            }
        }
    }
    /// Sendable unchecked, and why that holds: `all` never changes, and each viewer is used by one
    /// fetch at a time (the fetch of its own index; `fetchAll` waits for them all).
    final class Viewers: @unchecked Sendable {
        let all: [WebSocketViewer]
        init(_ all: [WebSocketViewer]) { self.all = all }
    }
    let shared = Viewers(viewers)
    func fetchAll(_ t0: Double) -> (last: Double, bytes: Int, statuses: [Int: Int]) {
        let tally = Tally(t0)
        let queue = DispatchQueue(label: "bench.images", attributes: .concurrent)
        let group = DispatchGroup(), gate = DispatchSemaphore(value: 8)
        for i in shared.all.indices {
            gate.wait()
            group.enter()
            let width = widths[i]
            queue.async {
                defer { gate.signal(); group.leave() }
                let f = try? shared.all[i].fetchImage(width: width)
                tally.add(f, at: MonotonicClock.now())
            }
        }
        group.wait()
        let sums = tally.sums.withLock { $0 }
        return (sums.last - t0, sums.bytes, sums.statuses)
    }

    // Page turns: control → every viewer has the state with the new page, then its image.
    var each: [Double] = [], all: [Double] = [], images: [Double] = [], newBytes: [Double] = [], seenBytes: [Double] = []
    var seenImages: [Double] = []
    var statuses: [Int: Int] = [:]
    var page = 1
    var visited: Set<Int> = [1]
    _ = fetchAll(MonotonicClock.now())   // page 1, before the turns
    for i in 0..<(rounds * 4) {
        for v in viewers { v.pump(timeout: 0); v.statesSeen = 0 }
        let forward = (i / 8) % 2 == 0
        if (forward && page == pages) || (!forward && page == 1) { continue }
        let t0 = MonotonicClock.now()
        try a.control(forward ? .next : .prev)
        page += forward ? 1 : -1
        let seenBefore = !visited.insert(page).inserted
        var last = t0
        for v in viewers {
            let deadline = MonotonicClock.now() + 5
            while v.statesSeen == 0 || v.pageImage?.hasSuffix("/\(page)") != true, MonotonicClock.now() < deadline { v.pump(timeout: 0.05) }
            each.append(v.lastStateAt - t0)
            last = max(last, v.lastStateAt)
        }
        all.append(last - t0)
        let f = fetchAll(t0)
        for (k, n) in f.statuses { statuses[k, default: 0] += n }
        if seenBefore {
            seenImages.append(f.last)
            seenBytes.append(Double(f.bytes) / Double(viewers.count))
        } else {
            images.append(f.last)
            newBytes.append(Double(f.bytes) / Double(viewers.count))
        }
    }
    func kib(_ x: Double) -> String { String(format: "%.1f KiB", x / 1024) }
    func mean(_ xs: [Double]) -> Double { xs.isEmpty ? 0 : xs.reduce(0, +) / Double(xs.count) }
    print("page turn → each of \(viewers.count) viewers has the new page's state (WebSocket, loopback; the frame on the wall first), \(all.count) turns:")
    print("  per viewer p50 \(ms(percentile(each, 0.5)))  p99 \(ms(percentile(each, 0.99)))  (goal p99 <= 100 ms)")
    print("  the last viewer p50 \(ms(percentile(all, 0.5)))  p99 \(ms(percentile(all, 0.99)))")
    print("page turn → all \(viewers.count) viewers have the page's image over HTTP (widths 640/960/1280, 8 fetching at once):")
    print("  a page new to them: p50 \(ms(percentile(images, 0.5)))  max \(ms(images.max() ?? 0)); \(kib(mean(newBytes))) a viewer a turn (\(images.count) turns)")
    print(
        "  a page seen before (304): p50 \(ms(percentile(seenImages, 0.5)))  max \(ms(seenImages.max() ?? 0)); \(String(format: "%.0f", mean(seenBytes))) bytes a viewer a turn (\(seenImages.count) turns)"
    )
    print(
        "  answers \(statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")); renders \(service.pageImageRenders) for \(visited.count) pages × 3 widths; cache \(kib(Double(service.pageImageCacheBytes)))"
    )

    // 250 answers in a burst over the WebSockets: the time until the presenter's pushed
    // state counts all of them, and the counts exact.
    var burst: [Double] = []
    for r in 0..<rounds {
        _ = try a.request(.pollAsk(PollDraft(question: "Round \(r)?", kind: .choice, answers: ["A", "B", "C", "D"])))
        for v in viewers { v.pump(timeout: 0) }
        let t0 = MonotonicClock.now()
        for (i, v) in viewers.enumerated() { v.send(Message.pollAnswer(poll: 0, .choice(i % 4)).encode(tag: 9, deviceID: 0xFF)) }
        let s = try a.waitForState(timeout: 10) { $0.audience?.poll?.total == viewers.count && $0.audience?.poll?.question == "Round \(r)?" }
        burst.append(MonotonicClock.now() - t0)
        let expected = (0..<4).map { k in (0..<viewers.count).filter { $0 % 4 == k }.count }
        if s.audience?.poll?.counts != expected { print("  WRONG counts \(String(describing: s.audience?.poll?.counts)), expected \(expected)") }
        for v in viewers { v.pump(timeout: 0) }
    }
    print("\(viewers.count) poll answers sent at once over WebSockets → the presenter's state shows all of them, counts exact, \(burst.count) rounds:")
    print("  p50 \(ms(percentile(burst, 0.5)))  max \(ms(burst.max() ?? 0))  (goal: within one second)")
    let peak = Footprint.residentBytes()
    print(
        "  the service's resident memory with \(viewers.count) viewers after the turns and polls: +\(String(format: "%.1f", Double(peak - before) / 1_048_576)) MiB over the room without them"
    )
    for v in viewers { v.close() }
}
