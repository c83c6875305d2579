import Foundation
import LecternModel
import LecternSystem
import LecternDisplay
import LecternPipeline
import LecternRender
import LecternService
import LecternTestSupport

/// Issue 15: page transitions. (1) A turn with a transition against a plain turn: command →
/// first changed frame on the output (the show returns once the present that changed the
/// output is on screen, in both cases), interleaved turn by turn. (2) The CPU time of one
/// transition frame at 1920×1080, each style, against the plain copy a turn makes anyway,
/// and what it would be on a Raspberry Pi 4.
func runTransitionBenchmarks(pdf: String, pageCount: Int, rounds: Int) throws {
    let mode = DisplayMode.fullHD
    let settings = Compositor.Settings(width: mode.width, height: mode.height)
    let store = try ContentStore(dataDir: dir + "/transition-data")
    let item = try store.add(fileAt: pdf)
    let display = VirtualDisplay(mode: mode)
    let compositor = Compositor(
        settings: settings, idle: IdleScreen(room: "Bench", addresses: [], port: 7420), budget: 4,
        documents: { try store.document($0) })
    let stage = Stage(output: display, compositor: compositor)
    var plain: [Double] = [], faded: [Double] = []
    var page = 1, phase = 0.0
    try stage.show(.page(content: item.id, page: page))
    for i in 0..<(rounds * 40) {
        compositor.waitForPrerender()
        while stage.isTransitioning { MonotonicClock.sleep(until: MonotonicClock.now() + 0.002) }
        let withTransition = i % 2 == 1
        stage.setFallbackTransition(withTransition ? .fade(0.3) : nil)
        stage.waitForFirstFrames()   // as after a moment on the slide
        // The command comes at a random moment of the refresh, the same for both turns of a
        // pair (plain, then with a transition), so the two are compared at equal waits.
        let period = mode.frameInterval, last = display.lastPresentTime
        if i % 2 == 0 { phase = Double.random(in: 0.0005..<(period - 0.0005)) }
        var at = last + phase
        while at < MonotonicClock.now() + 0.0005 { at += period }
        MonotonicClock.sleep(until: at)
        page = (i / 7) % 2 == 0 ? min(page + 1, pageCount) : max(page - 1, 1)
        let t0 = MonotonicClock.now()
        try stage.show(.page(content: item.id, page: page))
        // The refresh at which the first changed frame became visible (the frames after a
        // transition's first come a refresh or more later).
        let latency = display.lastPresentTime - t0
        if withTransition { faded.append(latency) } else { plain.append(latency) }
    }
    while stage.isTransitioning { MonotonicClock.sleep(until: MonotonicClock.now() + 0.002) }
    print(
        "page turn with a transition (0.3 s cross-fade) against a plain turn, command → the refresh that showed the first changed frame, \(plain.count) + \(faded.count) turns interleaved, each pair at the same random phase of the refresh (refresh \(ms(mode.frameInterval))):"
    )
    print("  plain       p50 \(ms(percentile(plain, 0.5)))  p99 \(ms(percentile(plain, 0.99)))")
    print(
        "  transition  p50 \(ms(percentile(faded, 0.5)))  p99 \(ms(percentile(faded, 0.99)))  (first frame drawn ahead of the turn in \(stage.firstFramesDrawnAhead) of \(faded.count))"
    )
    print(
        String(
            format: "  ratio transition/plain p50 %.3f  p99 %.3f (goal <= 1.05)", percentile(faded, 0.5) / percentile(plain, 0.5),
            percentile(faded, 0.99) / percentile(plain, 0.99)))
    let later = zip(plain, faded).filter { $1 - $0 > mode.frameInterval / 2 }.count
    let earlier = zip(plain, faded).filter { $0 - $1 > mode.frameInterval / 2 }.count
    print("  pairs where the transition's first frame came a refresh (or more) after its plain twin's: \(later) of \(faded.count) (the other way: \(earlier))")

    // One frame's CPU time: the blend into a back buffer, as the stage draws it.
    let doc = try PDFDocument(path: pdf)
    let a = try Compositor.renderPage(doc, page: 1, settings: settings), b = try Compositor.renderPage(doc, page: 2, settings: settings)
    let out = Frame(width: mode.width, height: mode.height)
    func cpu(_ body: () -> Void) -> Double {
        var samples: [Double] = []
        for _ in 0..<(rounds * 8) {
            let t0 = threadCPUTime()
            body()
            samples.append(threadCPUTime() - t0)
        }
        return median(samples)
    }
    let copy = cpu { out.copy(from: b) }
    print("one transition frame at \(mode.width)x\(mode.height), CPU time (this thread), median of \(rounds * 8):")
    print("  plain turn's copy into the back buffer  \(ms(copy))")
    var worst = 0.0
    for style in PageTransition.Style.allCases where style != .replace {
        let t = PageTransition(style: style)
        let c = cpu { TransitionBlend.draw(t, progress: 0.5, from: a, to: b, into: out) }
        worst = max(worst, c)
        print("  \(style.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0))  \(ms(c))  (\(String(format: "%.1f", c / copy))x the copy)")
    }
    // The Pi 4 (Cortex-A72 at 1.5 GHz, 1 MB L2, LPDDR4, 128-bit NEON), two ways:
    // - the CPU ratio: 6× this machine's time (single core, Geekbench 5 ≈ 250 on a Pi 4
    //   against ≈ 1300–1500 for a current x86 server core);
    // - memory: the frames don't fit its caches, so a frame streams from DRAM: a fade reads
    //   two frames and writes one (3 × 8.3 MB), at the ≈ 2.5 GB/s memcpy a Pi 4 reaches.
    //   (Here the three frames sit in the EPYC's L3: this machine's copy says nothing of DRAM.)
    let piRatio = 6.0, piBandwidth = 2.5e9
    let frameBytes = Double(mode.width * mode.height * 4)
    print(
        "  on a Raspberry Pi 4: by the CPU ratio (\(Int(piRatio))x) the worst style ≈ \(ms(worst * piRatio)), the copy ≈ \(ms(copy * piRatio)); "
            + "by memory (3 frames at 2.5 GB/s) a fade or dissolve ≈ \(ms(3 * frameBytes / piBandwidth)), the copy ≈ \(ms(2 * frameBytes / piBandwidth)); "
            + "a refresh at 60 Hz is \(ms(mode.frameInterval))")
}

/// CPU seconds this thread has used.
func threadCPUTime() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
