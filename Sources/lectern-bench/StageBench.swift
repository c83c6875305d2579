import Foundation
import LecternCore
import LecternDisplay
import LecternPipeline
import LecternRender
import LecternService
import LecternTestSupport
import Synchronization

/// Issue 26: the display loop. (1) A page turn to a prerendered neighbour, command → the
/// refresh that showed it (the same measure as the transition bench's plain turn, which is
/// main's figure for the old stage). (2) The loop's present-to-present interval while a
/// moving source plays over the whole wall, idle and with two busy threads on the 2 cores
/// (stress-ng --cpu 2's load, made here).
func runStageBenchmarks(pdf: String, pageCount: Int, rounds: Int) throws {
    let mode = DisplayMode.fullHD
    let store = try ContentStore(dataDir: dir + "/stage-data")
    let item = try store.add(fileAt: pdf)
    let display = VirtualDisplay(mode: mode)
    let compositor = Compositor(
        settings: .init(width: mode.width, height: mode.height), idle: IdleScreen(room: "Bench", addresses: [], port: 7420), budget: 4,
        documents: { try store.document($0) })
    let stage = Stage(output: display, compositor: compositor)
    var turns: [Double] = []
    var page = 1
    try stage.show(.page(content: item.id, page: page))
    for i in 0..<(rounds * 40) {
        compositor.waitForPrerender()
        let period = mode.frameInterval, last = display.lastPresentTime
        var at = last + Double.random(in: 0.0005..<(period - 0.0005))
        while at < MonotonicClock.now() + 0.0005 { at += period }
        MonotonicClock.sleep(until: at)
        page = (i / 7) % 2 == 0 ? min(page + 1, pageCount) : max(page - 1, 1)
        let t0 = MonotonicClock.now()
        try stage.show(.page(content: item.id, page: page))
        turns.append(display.lastPresentTime - t0)
    }
    print("page turn to a prerendered neighbour, command → the refresh that showed it, \(turns.count) turns (refresh \(ms(mode.frameInterval))):")
    print("  display loop  p50 \(ms(percentile(turns, 0.5)))  p99 \(ms(percentile(turns, 0.99)))  (goal p99 <= one refresh + 2 ms = \(ms(mode.frameInterval + 0.002)))")

    for busy in [0, 2] {
        let stop = Atomic<Bool>(false)
        let threads = (0..<busy).map { _ in
            Thread {
                var x = 0.0
                while !stop.load(ordering: .relaxed) { x += sin(x) }
                _ = x
            }
        }
        threads.forEach { $0.start() }
        let source = TimedSource(width: mode.width, height: mode.height)
        stage.attach(serial: 1, source)
        try stage.show(WallPlan(layout: .full, panes: [.clip(serial: 1)]))
        MonotonicClock.sleep(until: MonotonicClock.now() + Double(max(3, rounds)))
        stage.detach(serial: 1)
        stop.store(true, ordering: .relaxed)
        let t = source.times
        let gaps = zip(t, t.dropFirst()).map { $1 - $0 }
        let missed = gaps.filter { $0 > mode.frameInterval * 1.5 }.count
        print(
            "display loop present-to-present with a moving source over the wall, \(busy) busy threads, \(gaps.count) intervals: p50 \(ms(percentile(gaps, 0.5)))  p99 \(ms(percentile(gaps, 0.99)))  max \(ms(gaps.max() ?? 0))  late refreshes \(missed)"
        )
    }
}

/// A source with a new frame at every refresh; keeps the times its frames were presented.
private final class TimedSource: PaneVideoSource {
    private let frames: [Frame]
    private let state = Mutex<(n: Int, times: [Double])>((0, []))
    init(width: Int, height: Int) { frames = [RGB.white, RGB.black].map { Frame(width: width, height: height, color: $0) } }
    func frame(forRefreshAt refresh: Double, refreshPeriod: Double) -> Frame? {
        state.withLock {
            $0.n += 1
            return frames[$0.n % 2]
        }
    }
    func presented(at time: Double) { state.withLock { $0.times.append(time) } }
    func resize(width: Int, height: Int) {}
    var times: [Double] { state.withLock { $0.times } }
}
