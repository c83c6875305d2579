import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternDisplay
import LecternPipeline
import LecternProtocol
import LecternRender
import LecternRoom
import LecternService
import LecternTestSupport

/// `LECTERN_BENCH_ONLY=ink`: the pointer and ink (issue 16). Latencies through the real
/// service (a message over TCP to the room, the overlay, a present on the virtual display)
/// in refreshes of the display; a page turn with 500 strokes on the page against one
/// without; memory of the ink core per 10,000 points.
func runInkBenchmarks(rounds: Int) throws {
    let samples = max(60, rounds * 24)
    let h = try ServiceHarness(floor: .moderated)
    guard let display = h.service.stage.output as? VirtualDisplay else { print("ink: not on the virtual display"); return }
    let period = display.mode.frameInterval
    let mod = try h.moderator("Bench")
    let deck = try Fixtures.pdf(Array(repeating: Fixtures.quadrantPage(width: 800, height: 600), count: 8), in: Fixtures.tempDir("ink-bench"))
    let stored = try mod.upload(path: deck)
    try mod.present(stored.content)
    let rect = PixelRect(x: 240, y: 0, width: 1440, height: 1080)
    func wall(_ p: InkPoint) -> (Int, Int) { (rect.x + Int(p.px * Double(rect.width)), rect.y + Int(p.py * Double(rect.height))) }

    /// Seconds from `t0` until the refresh that first showed `color` at `at`.
    func shown(_ at: (Int, Int), _ color: RGB, since t0: Double) -> Double? {
        var seen = display.presentCount
        let deadline = t0 + 2
        while MonotonicClock.now() < deadline {
            let n = display.presentCount
            if n != seen {
                seen = n
                let visible = display.lastPresentTime
                if display.readBack().pixel(x: at.0, y: at.1) == color { return max(0, visible - t0) }
            }
            usleep(200)
        }
        return nil
    }

    // MARK: pointer move → drawn
    var pointer: [Double] = []
    var rng = SystemRandomNumberGenerator()
    for i in 0..<samples {
        let p = InkPoint(px: i % 2 == 0 ? 0.25 : 0.75, py: 0.5)
        usleep(UInt32.random(in: 0...UInt32(period * 1e6), using: &rng))   // any phase of the refresh
        let t0 = MonotonicClock.now()
        mod.point(x: p.px, y: p.py)
        if let t = shown(wall(p), InkPalette.pointer, since: t0) { pointer.append(t) }
    }
    mod.point(x: 0.75, y: 0.5, lifted: true)

    // MARK: stroke segment → on the wall
    var segment: [Double] = []
    let color = InkPalette.colors[1]
    let first = InkPoint(px: 0.05, py: 0.5)
    mod.send(.ink(.strokeBegin(StrokeBegin(tool: .pen, width: .thick, colorIndex: 2, points: [first]))))
    for i in 1...min(samples, 400) {
        let p = InkPoint(px: 0.05 + 0.9 * Double(i) / Double(min(samples, 400)), py: 0.5 + (i % 2 == 0 ? 0.02 : -0.02))
        usleep(UInt32.random(in: 0...UInt32(period * 1e6), using: &rng))
        let t0 = MonotonicClock.now()
        mod.send(.ink(.strokePoints([p])))
        if let t = shown(wall(p), color, since: t0) { segment.append(t) }
    }
    _ = try mod.request(.ink(.strokeEnd([])))
    try mod.inkClear(deck: true)

    func report(_ name: String, _ xs: [Double], of n: Int) {
        guard !xs.isEmpty else { return print("  \(name): never seen") }
        print(
            String(
                format: "  %@: p50 %.2f ms (%.2f refreshes), p99 %.2f ms (%.2f refreshes), %d of %d seen (goal <= 2 refreshes)",
                name, median(xs) * 1000, median(xs) / period, percentile(xs, 0.99) * 1000, percentile(xs, 0.99) / period, xs.count, n))
    }
    print("ink on the virtual display \(display.mode), through the service (TCP → room → overlay → present):")
    report("pointer move → drawn", pointer, of: samples)
    report("stroke segment → on the wall", segment, of: min(samples, 400))

    // MARK: a page turn with 500 strokes on the page against one without
    for page in [1, 2] {
        try mod.present(stored.content, page: UInt32(page))
        for s in 0..<500 {
            let y = 0.05 + 0.9 * Double(s) / 500
            try mod.draw((0..<20).map { InkPoint(px: 0.1 + 0.04 * Double($0), py: y + ($0 % 2 == 0 ? 0.004 : -0.004)) }, colorIndex: UInt8(1 + s % 4))
        }
    }
    let stage: Stage = h.service.stage
    for p in 1...4 { try stage.show(.page(content: stored.content.hex, page: p)) }   // all four cached
    var inked: [Double] = [], clean: [Double] = []
    for round in 0..<(samples / 2) {
        for withInk in (round % 2 == 0 ? [true, false] : [false, true]) {
            let pages = withInk ? [1, 2] : [3, 4]
            for p in pages {
                let t0 = MonotonicClock.now()
                try stage.show(.page(content: stored.content.hex, page: p))
                (withInk ? { inked.append(MonotonicClock.now() - t0) } : { clean.append(MonotonicClock.now() - t0) })()
            }
        }
    }
    print("page turn (cached page, present included), \(inked.count) turns each:")
    print(String(format: "  500 strokes × 20 points: p50 %.2f ms, p99 %.2f ms", median(inked) * 1000, percentile(inked, 0.99) * 1000))
    print(String(format: "  no ink:                  p50 %.2f ms, p99 %.2f ms", median(clean) * 1000, percentile(clean, 0.99) * 1000))
    print(String(format: "  ratio with/without = %.3f (goal <= 1.1)", median(inked) / median(clean)))
    // The first turn to a page after its ink changed composes its strokes once (then kept).
    let strokesOnPage = try mod.inkStrokes(content: stored.content, page: 1)
    let base = try stage.compositor.frame(for: .page(content: stored.content.hex, page: 1))
    var compose: [Double] = []
    for _ in 0..<max(5, rounds * 2) {
        let f = base.clone()
        let t0 = MonotonicClock.now()
        InkPainter.paint(strokes: strokesOnPage, pointers: [], into: f, rect: rect)
        compose.append(MonotonicClock.now() - t0)
    }
    print(
        String(
            format: "  composing %d strokes once (the first turn to the page after its ink changed): p50 %.2f ms, p99 %.2f ms",
            strokesOnPage.count, median(compose) * 1000, percentile(compose, 0.99) * 1000))

    // MARK: memory per 10,000 points
    var limits = InkBoard.Limits()
    limits.totalPoints = 2_000_000
    limits.pointsPerPage = 2_000_000
    limits.strokesPerPage = 1_000_000
    var board = InkBoard(limits: limits)
    let before = Footprint.residentBytes()
    let strokes = 2000, per = 1000   // 2,000,000 points on 4 pages
    for s in 0..<strokes {
        let page = InkPageRef(content: "bench", page: 1 + s % 4)
        try board.begin(
            InkBoard.Who(device: 1, lead: true), on: page, tool: .pen, width: .thin, colorIndex: 0,
            points: (0..<per).map { InkPoint(x: UInt16($0 * 60), y: UInt16(s * 30 % 65_535)) })
        _ = try board.end(1, points: [])
    }
    let grown = Footprint.residentBytes() - before
    let points = strokes * per
    print(
        String(
            format: "ink memory: %.1f kB per 10,000 points (resident growth for %d points in %d strokes; a point is %d bytes)",
            Double(grown) / Double(points) * 10_000 / 1000, points, board.strokeCount, MemoryLayout<InkPoint>.stride))
}
