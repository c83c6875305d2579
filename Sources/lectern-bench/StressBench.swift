import Foundation
import LecternModel
import LecternSystem
import LecternDisplay
import LecternPipeline
import LecternRender
import LecternService
import LecternTestSupport
import Synchronization

/// Issue 26 (`LECTERN_BENCH_ONLY=stress`): the display loop under load. Its present-to-present
/// interval while a moving source has a new frame at every refresh over the whole wall of a
/// virtual 60 Hz display, and a page turn to a prerendered neighbour (as the stage bench),
/// idle and with `stress-ng --cpu 2` (two workers busy on the 2 cores) running beside it.
/// Each run `LECTERN_BENCH_ROUNDS` seconds (at least 3; 20 with LECTERN_BENCH_LONG=1).
func runStressBenchmarks(pdf: String, pageCount: Int, rounds: Int) throws {
    let mode = DisplayMode.fullHD
    let seconds = benchLong ? 20 : max(3, rounds)
    let store = try ContentStore(dataDir: dir + "/stress-data")
    let item = try store.add(fileAt: pdf)
    print("the display loop under load (refresh \(ms(mode.frameInterval)); load: stress-ng --cpu 2, \(seconds) s each):")
    for loaded in [false, true] {
        let load = loaded ? try StressLoad(cpus: 2, seconds: seconds * 2 + 30) : nil
        defer { load?.stop() }
        let display = VirtualDisplay(mode: mode)
        let compositor = Compositor(
            settings: .init(width: mode.width, height: mode.height), idle: IdleScreen(room: "Bench", addresses: [], port: 7420), budget: 4,
            documents: { try store.document($0) })
        let stage = Stage(output: display, compositor: compositor)
        try stage.show(.page(content: item.id, page: 1))

        let source = TimedSource(width: mode.width, height: mode.height)
        stage.attach(serial: 1, source)
        try stage.show(WallPlan(layout: .full, panes: [.clip(serial: 1)]))
        MonotonicClock.sleep(until: MonotonicClock.now() + Double(seconds))
        stage.detach(serial: 1)
        let t = source.times
        let gaps = zip(t, t.dropFirst()).map { $1 - $0 }
        let late = gaps.filter { $0 > mode.frameInterval * 1.5 }.count
        let what = loaded ? "stress-ng --cpu 2" : "idle            "
        print(
            "  \(what)  present-to-present, a new frame at every refresh: p50 \(ms(percentile(gaps, 0.5)))  p99 \(ms(percentile(gaps, 0.99)))  max \(ms(gaps.max() ?? 0))  (\(gaps.count) intervals, \(late) refreshes missed)"
        )
        let turns = try pageTurns(seconds * 8, pageCount: pageCount, display: display, prerendered: { compositor.waitForPrerender() }) { page in
            try stage.show(.page(content: item.id, page: page))
        }
        print(
            "  \(what)  page turn to a prerendered neighbour: p50 \(ms(percentile(turns, 0.5)))  p99 \(ms(percentile(turns, 0.99)))  max \(ms(turns.max() ?? 0))  (\(turns.count) turns)"
        )
    }
}

/// `stress-ng --cpu N` running beside the bench until `stop()` (or its own timeout).
final class StressLoad {
    let process = Process()

    init(cpus: Int, seconds: Int) throws {
        guard let path = ["/usr/bin/stress-ng", "/usr/local/bin/stress-ng"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Fixtures.ToolError(description: "stress-ng is missing: board/install-deps installs it (board/debian-packages.txt)")
        }
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["--cpu", "\(cpus)", "--timeout", "\(seconds)s", "--quiet"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Its workers start at once; a moment for them to be scheduled.
        MonotonicClock.sleep(until: MonotonicClock.now() + 0.5)
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGINT) }
        process.waitUntilExit()
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
