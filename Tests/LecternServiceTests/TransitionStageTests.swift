import Foundation
import LecternModel
import LecternDisplay
import LecternPipeline
import LecternRender
import LecternService
import LecternTestSupport
import XCTest

/// Page transitions on the virtual display, with the stage's clock in the test's hand:
/// every frame checked is the one on the output (`screenshot` reads the front buffer back).
final class TransitionStageTests: XCTestCase {
    var dir = ""
    let mode = DisplayMode(width: 640, height: 360, refresh: 60)
    override func setUp() { dir = Fixtures.tempDir("transition-stage") }

    func makeStage(_ transitions: [String?], clock: ManualClock) throws -> (Stage, String, [Frame]) {
        let colors = [Fixtures.red, Fixtures.blue, Fixtures.green, Fixtures.yellow].prefix(transitions.count)
        let path = try Fixtures.transitionDeck(Array(colors), transitions: transitions, in: dir)
        let store = try ContentStore(dataDir: dir + "/data")
        let item = try store.add(fileAt: path)
        let settings = Compositor.Settings(width: mode.width, height: mode.height)
        let compositor = Compositor(
            settings: settings, idle: IdleScreen(room: "Room", addresses: ["192.0.2.7"], port: 7420),
            documents: { try store.document($0) })
        let doc = try PDFDocument(path: path)
        let pages = try (1...transitions.count).map { try Compositor.renderPage(doc, page: $0, settings: settings) }
        return (Stage(output: VirtualDisplay(mode: mode), compositor: compositor, clock: clock.read), item.id, pages)
    }

    /// (a·(256−α) + b·α) / 256 per channel: what a cross-fade at α/256 shows.
    func mix(_ a: RGB, _ b: RGB, _ alpha: Int) -> RGB {
        func m(_ x: UInt8, _ y: UInt8) -> UInt8 { UInt8((Int(x) * (256 - alpha) + Int(y) * alpha) >> 8) }
        return RGB(m(a.r, b.r), m(a.g, b.g), m(a.b, b.b))
    }

    func testTheMiddleFrameOfAFadeIsABlendOfTheTwoPages() throws {
        let clock = ManualClock(100)
        let (stage, id, pages) = try makeStage([nil, "/S /Fade /D 1"], clock: clock)
        try stage.show(.page(content: id, page: 1))
        try stage.show(.page(content: id, page: 2))
        XCTAssertTrue(stage.isTransitioning)
        // The clock started one refresh before the first frame: half-way is 0.5 s after that.
        clock.now = 100 - mode.frameInterval + 0.5
        let a = pages[0].pixel(x: 320, y: 180), b = pages[1].pixel(x: 320, y: 180)
        let half = mix(a, b, 128)
        XCTAssertNotEqual(half, a)
        XCTAssertNotEqual(half, b)
        try eventually("the output to show the fade half-way: \(half) (is \(stage.screenshot().pixel(x: 320, y: 180)))") {
            let f = stage.screenshot()
            return f.pixel(x: 320, y: 180) == half && f.isUniform(f.bounds, half)
        }
        clock.now = 102
        try eventually("the transition to end on page 2") { !stage.isTransitioning }
        XCTAssertEqual(PixelCompare.differingPixels(stage.screenshot(), pages[1]), 0)
    }

    func testTheFirstFrameIsOnTheOutputWhenThePlainTurnWouldBe() throws {
        let clock = ManualClock(0)
        let (stage, id, pages) = try makeStage([nil, "/S /Fade /D 1", nil], clock: clock)
        try stage.show(.page(content: id, page: 1))
        // A plain turn: when show returns, the new page is on the output.
        let before = (stage.output as! VirtualDisplay).presentCount
        try stage.show(.page(content: id, page: 3))
        XCTAssertEqual(PixelCompare.differingPixels(stage.screenshot(), pages[2]), 0)
        XCTAssertEqual((stage.output as! VirtualDisplay).presentCount, before + 1)
        try stage.show(.page(content: id, page: 1))
        XCTAssertFalse(stage.isTransitioning, "page 1 has no /Trans and no fallback is set: a cut")
        // With a transition: when show returns, the same present already put the first
        // frame of the fade on the output: no longer page 1, not yet page 2.
        let shownAt = (stage.output as! VirtualDisplay).presentCount
        try stage.show(.page(content: id, page: 2))
        let first = stage.screenshot()
        XCTAssertGreaterThanOrEqual((stage.output as! VirtualDisplay).presentCount, shownAt + 1)
        let p = first.pixel(x: 320, y: 180)
        XCTAssertNotEqual(p, pages[0].pixel(x: 320, y: 180), "the first frame of the transition is still the old page")
        XCTAssertNotEqual(p, pages[1].pixel(x: 320, y: 180))
        // One refresh into a one-second fade (the clock stands still).
        let alpha = Int((mode.frameInterval * 256).rounded())
        XCTAssertEqual(p, mix(pages[0].pixel(x: 320, y: 180), pages[1].pixel(x: 320, y: 180), alpha))
    }

    func testATurnDuringATransitionJumpsToItsEnd() throws {
        let clock = ManualClock(0)
        let (stage, id, pages) = try makeStage([nil, "/S /Wipe /D 2", "/S /Fade /D 2"], clock: clock)
        try stage.show(.page(content: id, page: 1))
        try stage.show(.page(content: id, page: 2))
        clock.now = 1   // half-way, and it stays there
        try eventually("the wipe half-way") { stage.screenshot().pixel(x: 10, y: 180) == pages[1].pixel(x: 10, y: 180) }
        XCTAssertTrue(stage.isTransitioning)
        try stage.show(.page(content: id, page: 3))
        XCTAssertFalse(stage.isTransitioning)
        XCTAssertEqual(PixelCompare.differingPixels(stage.screenshot(), pages[2]), 0, "the turn did not cut to page 3")
        XCTAssertEqual(stage.scene, .page(content: id, page: 3))
    }

    func testTheFallbackCrossFadeIsOffByDefaultAndPlaysWhenChosen() throws {
        let clock = ManualClock(0)
        let (stage, id, pages) = try makeStage([nil, nil, nil, "/S /R"], clock: clock)
        try stage.show(.page(content: id, page: 1))
        try stage.show(.page(content: id, page: 2))
        XCTAssertFalse(stage.isTransitioning)
        XCTAssertEqual(PixelCompare.differingPixels(stage.screenshot(), pages[1]), 0)
        stage.setFallbackTransition(.fade(0.5))
        try stage.show(.page(content: id, page: 3))
        XCTAssertTrue(stage.isTransitioning)
        clock.now = 0.25 - mode.frameInterval
        let half = mix(pages[1].pixel(x: 5, y: 5), pages[2].pixel(x: 5, y: 5), 128)
        try eventually("the fallback fade half-way") { stage.screenshot().pixel(x: 5, y: 5) == half }
        clock.now = 1
        try eventually("the fade to end") { !stage.isTransitioning }
        // /S /R (Replace) is the deck saying "no transition": a cut, fallback or not.
        try stage.show(.page(content: id, page: 4))
        XCTAssertFalse(stage.isTransitioning)
        XCTAssertEqual(PixelCompare.differingPixels(stage.screenshot(), pages[3]), 0)
        // Blank is always a cut.
        try stage.show(.blank(.black))
        XCTAssertFalse(stage.isTransitioning)
    }

    /// The first frame of a turn to a neighbouring page is drawn ahead, while the presenter
    /// talks: the turn then costs the copy a plain turn costs, and shows the same pixels.
    func testTheFirstFrameOfATurnToANeighbourIsDrawnAhead() throws {
        let clock = ManualClock(0)
        let (stage, id, pages) = try makeStage([nil, "/S /Dissolve /D 0.5", nil], clock: clock)
        try stage.show(.page(content: id, page: 1))
        stage.waitForFirstFrames()
        XCTAssertEqual(stage.firstFramesDrawnAhead, 0)
        try stage.show(.page(content: id, page: 2))
        XCTAssertEqual(stage.firstFramesDrawnAhead, 1, "the first frame was drawn at the turn")
        let expected = Frame(width: mode.width, height: mode.height)
        TransitionBlend.draw(
            PageTransition(style: .dissolve, duration: 0.5), progress: mode.frameInterval / 0.5, from: pages[0], to: pages[1], into: expected)
        XCTAssertEqual(PixelCompare.differingPixels(stage.screenshot(), expected), 0)
        // Page 3 has no transition and no fallback is set: nothing is drawn ahead for it.
        clock.now = 10
        try eventually("the dissolve to end") { !stage.isTransitioning }
        stage.waitForFirstFrames()
        try stage.show(.page(content: id, page: 3))
        XCTAssertEqual(stage.firstFramesDrawnAhead, 1)
        XCTAssertEqual(PixelCompare.differingPixels(stage.screenshot(), pages[2]), 0)
    }
}
