import LecternModel
import XCTest

@testable import LecternStage

/// The stage's decisions as tables: events in with a hand-moved clock, effects out in order
/// (as `RoomCore`'s tests). No thread, no output: frames are tiny and made here.
final class StageCoreTests: XCTestCase {
    let mode = DisplayMode(width: 160, height: 90, refresh: 50)

    func page(_ p: Int) -> Scene { .page(content: "deck", page: p) }

    /// The render worker's part: a frame of the asked size, the page 20 px in from the sides.
    func drawn(_ r: RenderRequest, color: RGB = .white, transition: PageTransition? = nil) -> StageEvent {
        let f = Frame(width: r.width, height: r.height, color: color)
        return .rendered(request: r.id, .success(RenderedPane(frame: f, pageRect: PixelRect(x: 20, y: 0, width: r.width - 40, height: r.height), transition: transition)))
    }

    func requests(_ effects: [StageEffect]) -> [RenderRequest] {
        effects.compactMap { if case .render(let r) = $0 { return r } else { return nil } }
    }

    func progress(_ c: Composition?, pane: Int = 0) -> Double? {
        guard let c, case .blend(_, let p, _, _, _) = c.panes[pane].content else { return nil }
        return p
    }

    /// Shows `scene` whole and presents it (the table's starting point).
    func shown(_ scene: Scene, on core: inout StageCore, op: Int = 1, now: Double = 0) {
        let r = requests(core.handle(.show(op: op, WallPlan(scene)), now: now))
        _ = core.handle(drawn(r[0]), now: now)
        _ = core.compose(now: now)
        _ = core.handle(.presented, now: now)
    }

    func testAPageIsDrawnAtTheOutputSizeComposedAndReportedShownOnceWithItsBox() {
        var core = StageCore(mode: mode)
        let asked = core.handle(.show(op: 7, WallPlan(page(1))), now: 0)
        XCTAssertEqual(asked, [.render(RenderRequest(id: 1, pane: 0, scene: page(1), width: 160, height: 90, wholeOutput: true))])
        XCTAssertNil(core.compose(now: 0), "nothing to present while the page is drawn")
        XCTAssertEqual(core.handle(drawn(requests(asked)[0]), now: 0.005), [])
        XCTAssertEqual(core.compose(now: 0.01)?.panes.map(\.kind), ["frame \(page(1))"])
        // Once it is up: its neighbours are drawn ahead, and it is reported shown.
        XCTAssertEqual(core.handle(.presented, now: 0.02), [.prerender(page(1)), .shown(op: 7, boxes: [PixelRect(x: 20, y: 0, width: 120, height: 90)])])
        XCTAssertNil(core.compose(now: 0.03), "nothing changed: nothing presented")
        XCTAssertEqual(core.handle(.presented, now: 0.04), [], "shown is reported once")
        XCTAssertEqual(core.scene, page(1))
    }

    func testANewerShowOvertakesOneStillDrawingWhoseLateFrameIsDropped() {
        var core = StageCore(mode: mode)
        let a = requests(core.handle(.show(op: 1, WallPlan(page(1))), now: 0))
        let b = core.handle(.show(op: 2, WallPlan(.blank(.black))), now: 0.001)
        XCTAssertEqual(
            b,
            [
                .failed(op: 1, .superseded), .cancelRenders,
                .render(RenderRequest(id: 2, pane: 0, scene: .blank(.black), width: 160, height: 90, wholeOutput: true)),
            ])
        XCTAssertEqual(core.handle(drawn(a[0]), now: 0.002), [], "the overtaken page never reaches the output")
        XCTAssertNil(core.compose(now: 0.003))
        XCTAssertEqual(core.handle(drawn(requests(b)[0], color: .black), now: 0.004), [])
        XCTAssertEqual(core.compose(now: 0.005)?.panes.map(\.kind), ["frame \(Scene.blank(.black))"])
        XCTAssertEqual(core.handle(.presented, now: 0.02), [.shown(op: 2, boxes: [PixelRect(x: 20, y: 0, width: 120, height: 90)])], "no neighbours for a blank")
    }

    func testAPageThatCannotBeDrawnKeepsThePreviousOne() {
        var core = StageCore(mode: mode)
        shown(page(1), on: &core)
        let r = requests(core.handle(.show(op: 2, WallPlan(page(9))), now: 1))[0]
        let why = StageFailure.render(request: r.id, message: "no page 9")
        XCTAssertEqual(core.handle(.rendered(request: r.id, .failure(why)), now: 1), [.failed(op: 2, why)])
        XCTAssertEqual(core.scene, page(1))
        XCTAssertNil(core.compose(now: 1.1), "the previous frame stays, nothing presented")
    }

    func testATransitionPlaysInsideItsPaneAStepARefreshAndATurnDuringItCuts() {
        var core = StageCore(mode: mode)
        shown(page(1), on: &core)
        let r = requests(core.handle(.show(op: 2, WallPlan(page(2))), now: 10))
        _ = core.handle(drawn(r[0], color: .black, transition: .fade(1)), now: 10)
        // The first frame is one refresh in, in the present a cut would have made.
        XCTAssertEqual(progress(core.compose(now: 10))!, 0.02, accuracy: 1e-9)
        XCTAssertEqual(core.handle(.presented, now: 10.02).count, 2, "shown with the first frame (and its neighbours drawn ahead)")
        XCTAssertTrue(core.isTransitioning)
        XCTAssertEqual(progress(core.compose(now: 10.48))!, 0.5, accuracy: 1e-9, "half-way half a second later")
        // A turn now: a cut to page 3.
        _ = core.handle(drawn(requests(core.handle(.show(op: 3, WallPlan(page(3))), now: 10.5))[0], transition: .fade(1)), now: 10.5)
        XCTAssertFalse(core.isTransitioning)
        XCTAssertEqual(core.compose(now: 10.5)?.panes.map(\.kind), ["frame \(page(3))"])
        // The transition to the end: the last step shows the page alone, then nothing more.
        _ = core.handle(drawn(requests(core.handle(.show(op: 4, WallPlan(page(4))), now: 11))[0], transition: .fade(0.05)), now: 11)
        XCTAssertNotNil(progress(core.compose(now: 11)))
        XCTAssertEqual(core.compose(now: 11.1)?.panes.map(\.kind), ["frame \(page(4))"])
        XCTAssertNil(core.compose(now: 11.2))
        // Blank is always a cut.
        _ = core.handle(drawn(requests(core.handle(.show(op: 5, WallPlan(.blank(.black))), now: 12))[0]), now: 12)
        XCTAssertFalse(core.isTransitioning)
    }

    func testASplitDrawsEachPaneAtItsSizeAndTheClipPaneTakesTheSourcesFrames() {
        var core = StageCore(mode: mode)
        let plan = WallPlan(layout: .split, panes: [.scene(page(1)), .clip(serial: 4)])
        let asked = core.handle(.show(op: 1, plan), now: 0)
        XCTAssertEqual(asked, [.render(RenderRequest(id: 1, pane: 0, scene: page(1), width: 80, height: 90, wholeOutput: false))])
        XCTAssertEqual(core.handle(drawn(requests(asked)[0]), now: 0), [.resizeSource(serial: 4, width: 80, height: 90)])
        XCTAssertEqual(core.compose(now: 0)?.panes.map(\.kind), ["frame \(page(1))", "video #4"], "no source yet: no frame of it, the background")
        XCTAssertEqual(core.handle(.presented, now: 0.02), [.shown(op: 1, boxes: [PixelRect(x: 20, y: 0, width: 40, height: 90), nil])])
        XCTAssertNil(core.compose(now: 0.03))
        XCTAssertEqual(core.handle(.sourceAttached(serial: 4), now: 0.04), [.resizeSource(serial: 4, width: 80, height: 90)])
        // A moving source in view: a composition at every refresh.
        for t in [0.04, 0.06, 0.08] {
            let c = core.compose(now: t)
            XCTAssertEqual(c?.panes.map(\.kind), ["frame \(page(1))", "video #4"])
            XCTAssertEqual(c?.panes.map(\.rect), [PixelRect(x: 0, y: 0, width: 80, height: 90), PixelRect(x: 80, y: 0, width: 80, height: 90)])
            _ = core.handle(.presented, now: t + 0.02)
        }
        _ = core.handle(.sourceEnded(serial: 4), now: 0.1)
        XCTAssertEqual(core.compose(now: 0.1)?.panes.map(\.kind), ["frame \(page(1))", "video #4"], "its last frame holds until the next plan")
        XCTAssertNil(core.compose(now: 0.12), "the source ended: nothing moves")
    }

    func testAQuadAsksForFourQuarterSizedPanes() {
        var core = StageCore(mode: mode, overscanPercent: 0)
        let plan = WallPlan(layout: .quad, panes: [.scene(page(1)), .scene(page(2)), .scene(.blank(.white)), .scene(.idle)])
        let asked = requests(core.handle(.show(op: 1, plan), now: 0))
        XCTAssertEqual(asked.map { [$0.pane, $0.width, $0.height] }, [[0, 80, 45], [1, 80, 45], [2, 80, 45], [3, 80, 45]])
        XCTAssertFalse(asked.contains { $0.wholeOutput })
        for r in asked.reversed() { _ = core.handle(drawn(r), now: 0) }
        XCTAssertEqual(core.compose(now: 0)?.panes.map(\.rect.x), [0, 80, 0, 80])
        let boxes = core.handle(.presented, now: 0)
        XCTAssertEqual(
            boxes,
            [
                .shown(
                    op: 1,
                    boxes: [
                        PixelRect(x: 20, y: 0, width: 40, height: 45), PixelRect(x: 100, y: 0, width: 40, height: 45), PixelRect(x: 20, y: 45, width: 40, height: 45),
                        PixelRect(x: 100, y: 45, width: 40, height: 45),
                    ])
            ])
    }

    func testTheDisplayGoneAndBackRedrawsTheWallAtTheNewModeWithoutAnOp() {
        var core = StageCore(mode: mode)
        shown(page(1), on: &core)
        XCTAssertEqual(core.handle(.displayEvent, now: 1), [.reprobe])
        XCTAssertEqual(core.handle(.output(mode, connected: false, changed: false), now: 1), [])
        XCTAssertFalse(core.connected)
        let other = DisplayMode(width: 100, height: 80, refresh: 60)
        XCTAssertEqual(core.handle(.displayEvent, now: 2), [.reprobe])
        let again = core.handle(.output(other, connected: true, changed: true), now: 2)
        XCTAssertEqual(again, [.render(RenderRequest(id: 2, pane: 0, scene: page(1), width: 100, height: 80, wholeOutput: true))])
        _ = core.handle(drawn(requests(again)[0]), now: 2)
        XCTAssertNotNil(core.compose(now: 2))
        XCTAssertEqual(core.handle(.presented, now: 2), [.prerender(page(1)), .shown(op: nil, boxes: [PixelRect(x: 20, y: 0, width: 60, height: 80)])])
    }

    func testAFrameDrawnForTheOldModeIsNotShown() {
        var core = StageCore(mode: mode)
        let old = requests(core.handle(.show(op: 1, WallPlan(page(1))), now: 0))[0]
        let again = requests(core.handle(.output(DisplayMode(width: 100, height: 80), connected: true, changed: true), now: 0))
        XCTAssertEqual(core.handle(drawn(old), now: 0), [], "drawn for the old mode: superseded by the reshow")
        _ = core.handle(drawn(again[0]), now: 0)
        _ = core.compose(now: 0)
        XCTAssertEqual(core.handle(.presented, now: 0).last, .shown(op: 1, boxes: [PixelRect(x: 20, y: 0, width: 60, height: 80)]), "the op is shown at the new mode")
    }

    func testTheIdleCardIsDrawnAgainWhenItsTextChangesAndOnlyThen() {
        var core = StageCore(mode: mode)
        shown(.idle, on: &core)
        XCTAssertEqual(requests(core.handle(.idleChanged, now: 1)).map(\.scene), [.idle])
        _ = core.handle(drawn(RenderRequest(id: 2, pane: 0, scene: .idle, width: 160, height: 90, wholeOutput: true)), now: 1)
        _ = core.compose(now: 1)
        shown(page(1), on: &core, op: 3, now: 2)
        XCTAssertEqual(core.handle(.idleChanged, now: 3), [])
    }

    /// A clip over the whole wall is a one-pane plan like any other (no path of its own):
    /// its frames are made for the safe area (as a page is fitted in it), it goes on through
    /// a display gone and back, and its last frame holds until the room's next plan.
    func testAClipOverTheWholeWallIsAOnePanePlanInTheSafeArea() {
        var core = StageCore(mode: mode, overscanPercent: 10)
        shown(page(1), on: &core)
        let safe = Fit.safeArea(width: 160, height: 90, overscanPercent: 10)
        XCTAssertEqual(core.handle(.show(op: 2, WallPlan(layout: .full, panes: [.clip(serial: 9)])), now: 1), [.resizeSource(serial: 9, width: safe.width, height: safe.height)])
        XCTAssertEqual(core.handle(.sourceAttached(serial: 9), now: 1), [.resizeSource(serial: 9, width: safe.width, height: safe.height)])
        XCTAssertEqual(core.compose(now: 1)?.panes.map(\.kind), ["video #9"])
        XCTAssertEqual(core.compose(now: 1.02)?.panes.map(\.rect), [safe], "every refresh, in the safe area")
        XCTAssertEqual(core.handle(.presented, now: 1.03), [.shown(op: 2, boxes: [nil])])
        // The display goes and comes back during the clip: the clip goes on.
        _ = core.handle(.output(mode, connected: false, changed: false), now: 1.03)
        XCTAssertEqual(core.handle(.output(mode, connected: true, changed: true), now: 1.04), [])
        XCTAssertEqual(core.compose(now: 1.05)?.panes.map(\.kind), ["video #9"])
        // A new mode: the source is asked for frames of the new safe area.
        let big = DisplayMode(width: 320, height: 180, refresh: 50)
        let bigSafe = Fit.safeArea(width: 320, height: 180, overscanPercent: 10)
        XCTAssertEqual(core.handle(.output(big, connected: true, changed: true), now: 1.1), [.resizeSource(serial: 9, width: bigSafe.width, height: bigSafe.height)])
        _ = core.handle(.sourceEnded(serial: 9), now: 2)
        XCTAssertEqual(core.compose(now: 2)?.panes.map(\.kind), ["video #9"], "the last frame holds")
        XCTAssertNil(core.compose(now: 2.02))
        let r = requests(core.handle(.show(op: 3, WallPlan(page(1))), now: 2.1))
        _ = core.handle(drawn(r[0]), now: 2.1)
        XCTAssertEqual(core.compose(now: 2.1)?.panes.map(\.kind), ["frame \(page(1))"])
    }

    /// Two clips side by side, then a pip: each source is asked for frames of its pane's size
    /// whenever its pane changes, and composed where its pane is.
    func testTwoClipsInTwoPanesAreEachSizedToTheirPane() {
        var core = StageCore(mode: mode)
        let split = WallPlan(layout: .split, panes: [.clip(serial: 1), .clip(serial: 2)])
        XCTAssertEqual(
            core.handle(.show(op: 1, split), now: 0),
            [.resizeSource(serial: 1, width: 80, height: 90), .resizeSource(serial: 2, width: 80, height: 90)])
        _ = core.handle(.sourceAttached(serial: 1), now: 0)
        _ = core.handle(.sourceAttached(serial: 2), now: 0)
        XCTAssertEqual(core.compose(now: 0)?.panes.map(\.kind), ["video #1", "video #2"])
        // The same plan again (a page turn elsewhere would be this): nothing to resize.
        XCTAssertEqual(core.handle(.show(op: 2, split), now: 0.1), [])
        // Picture in picture: clip 2 goes small.
        let pip = WallPlan(layout: .pip, panes: [.clip(serial: 1), .clip(serial: 2)])
        let small = WallLayout.pip.paneRects(width: 160, height: 90)[1]
        XCTAssertEqual(
            core.handle(.show(op: 3, pip), now: 0.2),
            [.resizeSource(serial: 1, width: 160, height: 90), .resizeSource(serial: 2, width: small.width, height: small.height)])
        XCTAssertEqual(core.compose(now: 0.2)?.panes.map(\.rect), [PixelRect(x: 0, y: 0, width: 160, height: 90), small])
    }

    func testTheCornerCodeIsComposedOverPagesButNotOverTheIdleCard() {
        var core = StageCore(mode: mode)
        shown(.idle, on: &core)
        _ = core.handle(.cornerCode("4711"), now: 1)
        XCTAssertNil(core.compose(now: 1)?.cornerCode)
        shown(page(1), on: &core, op: 2, now: 2)
        XCTAssertEqual(core.compose(now: 2) == nil, true, "composed already by the show")
        _ = core.handle(.cornerCode("0815"), now: 3)
        XCTAssertEqual(core.compose(now: 3)?.cornerCode, "0815")
        _ = core.handle(.cornerCode("0815"), now: 4)
        XCTAssertNil(core.compose(now: 4), "the same code: nothing to draw")
    }

    func testInkChangesAskForOneCompositionEach() {
        var core = StageCore(mode: mode)
        shown(page(1), on: &core)
        XCTAssertNil(core.compose(now: 1))
        _ = core.handle(.inkChanged, now: 1)
        _ = core.handle(.inkChanged, now: 1.001)
        XCTAssertNotNil(core.compose(now: 1.002))
        XCTAssertNil(core.compose(now: 1.02))
    }
}
