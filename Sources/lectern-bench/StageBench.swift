import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternDisplay
import LecternPipeline
import LecternProtocol
import LecternRender
import LecternService
import LecternTestSupport
import Synchronization

/// Issue 26 (`LECTERN_BENCH_ONLY=stage`): a page turn to a prerendered neighbour, command →
/// the refresh that showed it, on a virtual 60 Hz display. Goal: p99 ≤ one refresh + 2 ms.
/// (1) The stage alone, its pages drawn in this process (main's figure for the old stage is
/// this same measure) and in render workers (as the service ships); (2) the whole service
/// over TLS: `next` from a connected presenter to the refresh that showed the page.
/// The reference is the refresh itself: what a turn costs beyond waiting for it.
func runStageBenchmarks(pdf: String, pageCount: Int, rounds: Int) throws {
    let mode = DisplayMode.fullHD
    print("page turn to a prerendered neighbour, command → the refresh that showed it (refresh \(ms(mode.frameInterval)), goal p99 <= \(ms(mode.frameInterval + 0.002))):")
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
    let lecternd = (exe as NSString).deletingLastPathComponent + "/lecternd"
    precondition(FileManager.default.isExecutableFile(atPath: lecternd), "build lecternd beside lectern-bench (make bench does)")
    for inWorkers in [false, true] {
        let store = try ContentStore(dataDir: dir + "/stage-data-\(inWorkers)")
        let item = try store.add(fileAt: pdf)
        let display = VirtualDisplay(mode: mode)
        let workers = inWorkers ? RenderWorkers(executable: lecternd, limits: RenderWorker.Limits(memoryBytes: 256 << 20, cpuSeconds: 10)) : nil
        defer { workers?.stop() }
        let compositor = Compositor(
            settings: .init(width: mode.width, height: mode.height), idle: IdleScreen(room: "Bench", addresses: [], port: 7420), budget: 4,
            workers: workers, locate: { try store.file($0) }, documents: { try store.document($0) })
        let stage = Stage(output: display, compositor: compositor)
        try stage.show(.page(content: item.id, page: 1))
        let turns = try pageTurns(rounds * 40, pageCount: pageCount, display: display, prerendered: { compositor.waitForPrerender() }) { page in
            try stage.show(.page(content: item.id, page: page))
        }
        let renders = compositor.renderCount
        let worst = turns.indices.max { turns[$0] < turns[$1] } ?? 0
        print(
            "  stage, pages drawn \(inWorkers ? "in render workers " : "in this process   ")  p50 \(ms(percentile(turns, 0.5)))  p99 \(ms(percentile(turns, 0.99)))  max \(ms(turns.max() ?? 0)) (turn \(worst + 1))  (\(turns.count) turns, \(renders) drawn on demand)"
        )
    }

    // The service as it ships (TLS, render workers), a presenter's `next` and `prev`.
    let room = try BenchRoom(dir: dir + "/stage-room", presenterName: "Ana")
    defer { room.service.stop() }
    guard let display = room.service.stage.output as? VirtualDisplay else { return print("  (the service has no virtual display)") }
    let stored = try room.presenter.upload(path: pdf)
    try room.presenter.present(stored.content, page: 1)
    var page = 1
    let turns = try pageTurns(rounds * 40, pageCount: pageCount, display: display, prerendered: { room.service.stage.compositor.waitForPrerender() }) { p in
        try room.presenter.control(p > page ? .next : .prev)
        page = p
    }
    print("  service over TLS, next/prev     p50 \(ms(percentile(turns, 0.5)))  p99 \(ms(percentile(turns, 0.99)))  max \(ms(turns.max() ?? 0))  (\(turns.count) turns)")
}

/// `count` turns back and forth through a deck of `pageCount` pages from page 1 (on the wall
/// already; seven forward, seven back), each at a random moment within a refresh, once the
/// neighbour is drawn ahead:
/// seconds from the turn asked (`turn(page)`, returning once it is shown) to the refresh
/// that showed it.
func pageTurns(_ count: Int, pageCount: Int, display: VirtualDisplay, prerendered: () -> Void, turn: (Int) throws -> Void) throws -> [Double] {
    var turns: [Double] = []
    var page = 1
    let period = display.mode.frameInterval
    for i in 0..<count {
        prerendered()
        let last = display.lastPresentTime
        var at = last + Double.random(in: 0.0005..<(period - 0.0005))
        while at < MonotonicClock.now() + 0.0005 { at += period }
        MonotonicClock.sleep(until: at)
        page = (i / 7) % 2 == 0 ? min(page + 1, pageCount) : max(page - 1, 1)
        let t0 = MonotonicClock.now()
        try turn(page)
        turns.append(display.lastPresentTime - t0)
    }
    return turns
}
