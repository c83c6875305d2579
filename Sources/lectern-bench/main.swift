import Foundation
import LecternModel
import LecternSystem
import LecternDisplay
import LecternPipeline
import LecternRender
import LecternService
import LecternTestSupport

// `make bench`: Lectern's figures against the reference tools, run side by side in this
// process tree, interleaved round by round so the noise of a shared machine hits both.

func ms(_ s: Double) -> String { String(format: "%.2f ms", s * 1000) }

let dir = Fixtures.tempDir("bench")
let rounds = Int(ProcessInfo.processInfo.environment["LECTERN_BENCH_ROUNDS"] ?? "") ?? 5
/// LECTERN_BENCH_ONLY=render,transition,stage,stress,paneclip,protocol,hostile,video,clips2,sound,ink,record,office,photos,audience,tls,board,share runs only those parts (default: all; `twoclips` is `clips2`).
func wants(_ part: String) -> Bool {
    guard let only = ProcessInfo.processInfo.environment["LECTERN_BENCH_ONLY"], !only.isEmpty else { return true }
    return only.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == part }
}

// MARK: a realistic deck: text, boxes and a photo-like gradient of many small boxes
var pages: [PDFSketch.Page] = []
for n in 1...8 {
    var boxes: [PDFSketch.Box] = []
    for i in 0..<40 {
        let t = Double(i) / 40
        boxes.append(
            .init(
                x: 0.55 + 0.4 * t, y: 0.3, width: 0.011, height: 0.5,
                color: RGB(UInt8(40 + 200 * t), UInt8(120), UInt8(220 - 180 * t))))
    }
    boxes.append(.init(x: 0.05, y: 0.05, width: 0.9, height: 0.12, color: RGB(20, 60, 140)))
    pages.append(
        PDFSketch.Page(
            width: 720, height: 540, boxes: boxes,
            texts: [
                .init("Quarterly review — slide \(n)", x: 0.07, y: 0.07, size: 0.07, color: .white, bold: true),
                .init("• Revenue up 12 % on last year", x: 0.07, y: 0.30, size: 0.045),
                .init("• Two new rooms equipped", x: 0.07, y: 0.40, size: 0.045),
                .init("• Page turns under one refresh", x: 0.07, y: 0.50, size: 0.045),
                .init("• Nothing lost when the power goes", x: 0.07, y: 0.60, size: 0.045),
            ]))
}
let pdf = try Fixtures.pdf(pages, in: dir, name: "bench-deck.pdf")
let mode = DisplayMode.fullHD
let settings = Compositor.Settings(width: mode.width, height: mode.height)
let rect = Fit.rect(for: try PDFDocument(path: pdf).shape(page: 1), width: mode.width, height: mode.height)

if wants("render") {
    // MARK: render per page, ours against pdftoppm
    var ours: [Double] = [], theirs: [Double] = []
    for _ in 0..<rounds {
        let t0 = MonotonicClock.now()
        let doc = try PDFDocument(path: pdf)
        for p in 1...doc.pageCount { _ = try Compositor.renderPage(doc, page: p, settings: settings) }
        ours.append((MonotonicClock.now() - t0) / Double(pages.count))

        let t1 = MonotonicClock.now()
        let r = try Fixtures.run(
            "pdftoppm",
            [
                "-f", "1", "-l", "\(pages.count)", "-scale-to-x", "\(rect.width)",
                "-scale-to-y", "\(rect.height)", pdf, dir + "/ref",
            ])
        precondition(r.status == 0, r.err)
        theirs.append((MonotonicClock.now() - t1) / Double(pages.count))
    }
    let ratio = median(ours) / median(theirs)
    print("pdf render, \(pages.count) pages at \(mode.width)x\(mode.height) (content \(rect.width)x\(rect.height)), median of \(rounds) rounds:")
    print("  lectern   \(ms(median(ours))) per page")
    print("  pdftoppm  \(ms(median(theirs))) per page (one process for all pages, PPM out)")
    print(String(format: "  ratio lectern/pdftoppm = %.3f (target <= 1.05)", ratio))

    // MARK: the service's render: in the caller's thread, on a render thread of this
    // process (before the render workers), in a render worker process (the service now)
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
    let lecternd = (exe as NSString).deletingLastPathComponent + "/lecternd"
    precondition(FileManager.default.isExecutableFile(atPath: lecternd), "build lecternd beside lectern-bench (make bench does)")
    let workers = RenderWorkers(executable: lecternd, limits: RenderWorker.Limits(memoryBytes: 256 << 20, cpuSeconds: 10))
    defer { workers.stop() }
    try workers.wall.start()
    // Frames dropped at once (a worker's buffer is reused: the page cache evicting as
    // pages turn) and held (every page a fresh buffer: the cache filling up).
    var plain: [Double] = [], threaded: [Double] = [], worker: [Double] = [], threadedHeld: [Double] = [], workerHeld: [Double] = []
    for round in 0..<(rounds * 5) {
        let doc = try PDFDocument(path: pdf)
        let how = round % 5
        let c = Compositor(
            settings: settings, idle: IdleScreen(room: "Bench", addresses: [], port: 7420), cacheBytes: 0, budget: how == 0 ? nil : 4,
            workers: how == 2 || how == 4 ? workers : nil
        ) { _ in doc }
        var held: [Frame] = []
        for p in 1...doc.pageCount {
            usleep(30_000)   // turns are seconds apart: the shared buffers are topped up between them
            let t0 = MonotonicClock.now()
            let f = try c.frame(for: .page(content: "bench", page: p))
            let took = MonotonicClock.now() - t0
            if how >= 3 { held.append(f) }
            switch how {
            case 0: plain.append(took)
            case 1: threaded.append(took)
            case 2: worker.append(took)
            case 3: threadedHeld.append(took)
            default: workerHeld.append(took)
            }
        }
    }
    let pdftoppm = median(theirs)
    func line(_ name: String, _ xs: [Double]) -> String {
        "  \(name)  p50 \(ms(percentile(xs, 0.5)))  p99 \(ms(percentile(xs, 0.99)))  ratio to pdftoppm \(String(format: "%.3f", percentile(xs, 0.5) / pdftoppm))"
    }
    print("render budget (the service's path, render_budget = 4 s), \(worker.count) pages each at \(mode.width)x\(mode.height):")
    print(line("in the caller's thread                     ", plain))
    print(line("on a render thread (before), frame dropped ", threaded))
    print(line("in a render worker (now), buffer reused    ", worker))
    print(line("on a render thread (before), frame held    ", threadedHeld))
    print(line("in a render worker (now), fresh buffer     ", workerHeld))
    print(
        String(
            format: "  worker / render thread: reused p50 %.3f, p99 %.3f; fresh p50 %.3f, p99 %.3f (goal <= 1.10)",
            percentile(worker, 0.5) / percentile(threaded, 0.5), percentile(worker, 0.99) / percentile(threaded, 0.99),
            percentile(workerHeld, 0.5) / percentile(threadedHeld, 0.5), percentile(workerHeld, 0.99) / percentile(threadedHeld, 0.99)))

    // MARK: presenting an already-prerendered neighbour
    let store = try ContentStore(dataDir: dir + "/data")
    let item = try store.add(fileAt: pdf)
    let display = VirtualDisplay(mode: mode)
    let compositor = Compositor(
        settings: settings, idle: IdleScreen(room: "Bench", addresses: [], port: 7420), budget: 4, workers: workers,
        documents: { try store.document($0) })
    let stage = Stage(output: display, compositor: compositor)
    var compose: [Double] = [], onScreen: [Double] = []
    var page = 1
    try stage.show(.page(content: item.id, page: page))
    for i in 0..<(rounds * 12) {
        compositor.waitForPrerender()   // the neighbour is ready, as it is after a moment on a slide
        page = (i / 7) % 2 == 0 ? min(page + 1, pages.count) : max(page - 1, 1)
        let t0 = MonotonicClock.now()
        let frame = try compositor.frame(for: .page(content: item.id, page: page))
        let back = Frame(width: mode.width, height: mode.height)
        back.copy(from: frame)   // what the present does before waiting for the refresh
        compose.append(MonotonicClock.now() - t0)
        let t1 = MonotonicClock.now()
        try stage.show(.page(content: item.id, page: page))
        onScreen.append(display.lastPresentTime - t1)
    }
    print("page turn to a prerendered neighbour, \(compose.count) turns (refresh \(ms(mode.frameInterval))):")
    print("  ready to flip  p50 \(ms(percentile(compose, 0.5)))  p99 \(ms(percentile(compose, 0.99)))")
    print("  on screen      p50 \(ms(percentile(onScreen, 0.5)))  p99 \(ms(percentile(onScreen, 0.99))) (includes waiting for the refresh)")
    print("  renders on demand during the turns: \(compositor.renderCount - 1)")
}

if wants("transition") { try runTransitionBenchmarks(pdf: pdf, pageCount: pages.count, rounds: rounds) }
if wants("stage") { try runStageBenchmarks(pdf: pdf, pageCount: pages.count, rounds: rounds) }
if wants("paneclip") { try runPaneClipBenchmark(pdf: pdf, pageCount: pages.count, rounds: rounds) }
if wants("stress") { try runStressBenchmarks(pdf: pdf, pageCount: pages.count, rounds: rounds) }

if wants("protocol") { try runProtocolBenchmarks(rounds: rounds) }
if wants("audience") { try runAudienceBenchmarks(rounds: rounds) }

if wants("video") { runVideoBenchmarks() }
if wants("clips2") || wants("twoclips") { runTwoClipsBenchmark() }
if wants("share") { runShareBenchmarks(pdf: pdf) }

if wants("sound") { runSoundBenchmarks() }
if wants("ink") {
    try runInkBenchmarks(rounds: rounds)
    try runDurableAckBenchmark()
}
if wants("record") { try runRecordBenchmarks(pages: pages, rounds: rounds) }
if wants("office") { try runOfficeBenchmarks(rounds: rounds) }
if wants("photos") { try runPhotoBenchmarks(rounds: rounds) }

if wants("hostile") {
    try runHostileBenchmarks()
    try runPeerBudgetBenchmarks(rounds: rounds)
}

if wants("tls") {
    try runTLSBenchmarks(rounds: rounds)
}

if wants("board") && ProcessInfo.processInfo.environment["LECTERN_BENCH_BOARD"] != "0" {
    try runBoardBenchmarks(turns: 40)
}
