import Foundation
import LecternModel
import LecternSystem
import LecternDisplay
import LecternPipeline
import LecternTestSupport
import Synchronization
import XCTest

@testable import LecternStage

/// What the display loop presents while moving sources play, on a real virtual display
/// (60 Hz): a refresh where no source has a new frame presents nothing (the output keeps its
/// picture), and a source hears `presented` only for the frames it gave.
final class DisplayLoopPresentTests: XCTestCase {
    let mode = DisplayMode(width: 320, height: 180, refresh: 60)

    /// A source with a new frame at every `every`-th refresh it is asked about (a 15 fps clip
    /// on a 60 Hz wall, say); it counts what it gave and what it heard was presented.
    final class EveryNth: PaneVideoSource {
        let every: Int
        let frames: [Frame]
        let state = Mutex<(asked: Int, given: Int, presented: Int)>((0, 0, 0))
        /// Called on the display loop with the count of frames given, after each one.
        let hook = Mutex<(@Sendable (Int) -> Void)?>(nil)
        var onGive: (@Sendable (Int) -> Void)? {
            get { hook.withLock { $0 } }
            set { hook.withLock { $0 = newValue } }
        }
        init(every: Int, width: Int, height: Int) {
            self.every = every
            frames = [RGB(200, 0, 0), RGB(0, 0, 200)].map { Frame(width: width, height: height, color: $0) }
        }
        func frame(forRefreshAt refresh: Double, refreshPeriod: Double) -> Frame? {
            let given = state.withLock { s -> Int? in
                s.asked += 1
                guard (s.asked - 1) % every == 0 else { return nil }
                s.given += 1
                return s.given
            }
            guard let given else { return nil }
            onGive?(given)
            return frames[given % 2]
        }
        func presented(at time: Double) { state.withLock { $0.presented += 1 } }
        func resize(width: Int, height: Int) {}
        var counts: (asked: Int, given: Int, presented: Int) { state.withLock { $0 } }
    }

    func testARefreshWithNothingNewPresentsNothing() throws {
        let display = VirtualDisplay(mode: mode)
        let loop = DisplayLoop(output: display, core: StageCore(mode: mode), ink: InkOverlay(), hooks: DisplayHooks { _ in .failure(.superseded) })
        defer { loop.stop() }
        let rects = WallLayout.split.paneRects(width: mode.width, height: mode.height)
        let fast = EveryNth(every: 2, width: rects[0].width, height: rects[0].height)
        let slow = EveryNth(every: 4, width: rects[1].width, height: rects[1].height)
        loop.attach(serial: 1, fast)
        loop.attach(serial: 2, slow)
        loop.post(.show(op: nil, WallPlan(layout: .split, panes: [.clip(serial: 1), .clip(serial: 2)])))
        try eventually("a second of refreshes", timeout: 20) { slow.counts.asked >= 60 }
        let presents0 = display.presentCount, f0 = fast.counts, s0 = slow.counts
        try eventually("another second", timeout: 20) { slow.counts.asked >= s0.asked + 60 }
        let presents = display.presentCount - presents0
        let f = fast.counts, s = slow.counts
        let asked = s.asked - s0.asked
        print("asked \(asked) refreshes; fast gave \(f.given - f0.given), slow \(s.given - s0.given); presents \(presents)")
        // Both are asked at every refresh; the wall is presented only when the fast one (every
        // other refresh, which includes the slow one's) had a new frame.
        XCTAssertEqual(Double(f.asked - f0.asked), Double(asked), accuracy: 1)
        XCTAssertEqual(Double(presents), Double(asked) / 2, accuracy: 2, "presented at refreshes with nothing new")
        XCTAssertEqual(Double(f.presented), Double(f.given), accuracy: 1, "the fast source heard of its frames only")
        XCTAssertEqual(Double(s.presented), Double(s.given), accuracy: 1, "the slow source heard of its frames only")
        // The wall shows both sources' latest frames, side by side.
        let wall = display.readBack()
        XCTAssertNotEqual(wall.pixel(x: 80, y: 90), .black)
        XCTAssertNotEqual(wall.pixel(x: 240, y: 90), .black)
    }

    /// A second clip started while one plays starts on a refresh where the first has a new
    /// frame: two clips of one rate change together, and the wall is presented once for both
    /// (not at every refresh, each pane drawn each time). Here the second is attached just
    /// after a refresh where the first changed, so that its first take would fall between.
    func testASourceStartsOnARefreshWhereThoseOnTheWallChange() throws {
        let display = VirtualDisplay(mode: mode)
        let loop = DisplayLoop(output: display, core: StageCore(mode: mode), ink: InkOverlay(), hooks: DisplayHooks { _ in .failure(.superseded) })
        defer { loop.stop() }
        let rects = WallLayout.split.paneRects(width: mode.width, height: mode.height)
        let first = EveryNth(every: 2, width: rects[0].width, height: rects[0].height)
        let second = EveryNth(every: 2, width: rects[1].width, height: rects[1].height)
        first.onGive = { n in if n == 5 { loop.attach(serial: 2, second) } }
        loop.attach(serial: 1, first)
        loop.post(.show(op: nil, WallPlan(layout: .split, panes: [.clip(serial: 1), .clip(serial: 2)])))
        try eventually("the second source plays", timeout: 20) { second.counts.given >= 10 }
        let p0 = display.presentCount, a0 = first.counts.asked
        try eventually("a second more", timeout: 20) { first.counts.asked >= a0 + 60 }
        let presents = display.presentCount - p0, asked = first.counts.asked - a0
        print("asked \(asked) refreshes, presents \(presents)")
        XCTAssertEqual(Double(presents), Double(asked) / 2, accuracy: 2, "the two sources change on alternate refreshes")
        XCTAssertEqual(Double(second.counts.given), Double(second.counts.asked + 1) / 2, accuracy: 1, "the second is asked at every refresh once started")
    }

    /// A page in one pane of a split, a clip in the other: once each back buffer has the
    /// page, a present draws only the clip's pane (the page's pixels are left alone), and
    /// every presented frame is still the whole wall, exactly.
    func testOnlyThePanesThatChangedAreDrawnAgain() throws {
        let output = SentinelOutput(mode: mode)
        let green = RGB(0, 180, 0)
        let hooks = DisplayHooks { r in .success(RenderedPane(frame: Frame(width: r.width, height: r.height, color: green), pageRect: nil)) }
        let loop = DisplayLoop(output: output, core: StageCore(mode: mode), ink: InkOverlay(), hooks: hooks)
        defer { loop.stop() }
        let rects = WallLayout.split.paneRects(width: mode.width, height: mode.height)
        let clip = EveryNth(every: 2, width: rects[1].width, height: rects[1].height)
        loop.attach(serial: 1, clip)
        loop.post(.show(op: nil, WallPlan(layout: .split, panes: [.scene(.page(content: "deck", page: 1)), .clip(serial: 1)])))
        try eventually("30 presents of the split", timeout: 20) { output.presents.filter { $0.left == green }.count >= 30 }
        loop.stop()
        let all = output.presents
        let presents = Array(all[try XCTUnwrap(all.firstIndex { $0.left == green })...])
        // The first present of each buffer draws the page; after that, never again.
        XCTAssertTrue(presents.prefix(2).allSatisfy { $0.page }, "each buffer's first present draws the page")
        XCTAssertEqual(presents.dropFirst(3).filter { $0.page }.count, 0, "the page's pane was drawn again: \(presents.map(\.page))")
        XCTAssertTrue(presents.dropFirst(3).allSatisfy { $0.clip }, "the clip's pane is drawn at each present")
        // And what went on the output was the whole wall each time: the page, and the clip's
        // frame taken last.
        XCTAssertTrue(presents.allSatisfy { $0.left == green }, "\(presents.map(\.left))")
        XCTAssertTrue(presents.dropFirst().allSatisfy { $0.right != .black && $0.right != SentinelOutput.poison })
    }

    /// The background is drawn under the panes only where none covers the output.
    func testPanesCoverTheOutputOnlyWhenTheyTileIt() {
        func covers(_ layout: WallLayout, _ w: Int = 1920, _ h: Int = 1080, overscan: Double = 0) -> Bool {
            let panes = layout.paneRects(width: w, height: h, overscanPercent: overscan).map { ComposedPane(rect: $0, content: .empty) }
            return Composition(width: w, height: h, background: .black, panes: panes, cornerCode: nil).panesCoverTheOutput
        }
        XCTAssertTrue(covers(.split))
        XCTAssertTrue(covers(.quad))
        XCTAssertTrue(covers(.stack))
        XCTAssertFalse(covers(.split, overscan: 3), "the overscan's border is background")
        let full = Composition(
            width: 1920, height: 1080, background: .black, panes: [ComposedPane(rect: PixelRect(x: 0, y: 0, width: 1920, height: 1080), content: .empty)],
            cornerCode: nil)
        XCTAssertTrue(full.panesCoverTheOutput)
        let gap = Composition(
            width: 1920, height: 1080, background: .black,
            panes: [
                ComposedPane(rect: PixelRect(x: 0, y: 0, width: 900, height: 1080), content: .empty),
                ComposedPane(rect: PixelRect(x: 960, y: 0, width: 960, height: 1080), content: .empty),
            ],
            cornerCode: nil)
        XCTAssertFalse(gap.panesCoverTheOutput)
    }
}

/// An output of two buffers, each presented in turn, that marks one pixel of each half with
/// a sentinel before the loop draws: a pixel still marked after the draw was not drawn over.
/// The mark is taken out again before the buffer is shown, and what was shown is noted.
final class SentinelOutput: Output, Sendable {
    static let poison = RGB(255, 0, 255)
    struct Present: Sendable {
        var page: Bool, clip: Bool, left: RGB, right: RGB
    }
    let mode: DisplayMode
    var name: String { "sentinel \(mode)" }
    private let buffers: [Frame]
    private let state = Mutex<(n: Int, presents: [Present])>((0, []))
    init(mode: DisplayMode) {
        self.mode = mode
        buffers = [Frame(width: mode.width, height: mode.height), Frame(width: mode.width, height: mode.height)]
    }
    func present(draw: (Frame) throws -> Void) throws {
        let b = buffers[state.withLock { $0.n } % 2]
        let (lx, rx, y) = (mode.width / 4, mode.width * 3 / 4, mode.height / 2)
        let saved = (b.pixel(x: lx, y: y), b.pixel(x: rx, y: y))
        b.setPixel(x: lx, y: y, Self.poison)
        b.setPixel(x: rx, y: y, Self.poison)
        try draw(b)
        let page = b.pixel(x: lx, y: y) != Self.poison, clip = b.pixel(x: rx, y: y) != Self.poison
        if !page { b.setPixel(x: lx, y: y, saved.0) }
        if !clip { b.setPixel(x: rx, y: y, saved.1) }
        let shown = Present(page: page, clip: clip, left: b.pixel(x: lx, y: y), right: b.pixel(x: rx, y: y))
        MonotonicClock.sleep(until: MonotonicClock.now() + mode.frameInterval)   // the refresh this output waits for
        state.withLock {
            $0.n += 1
            $0.presents.append(shown)
        }
    }
    func readBack() -> Frame { buffers[(state.withLock { $0.n } + 1) % 2].clone() }
    var presentCount: Int { state.withLock { $0.n } }
    var presents: [Present] { state.withLock { $0.presents } }
}
