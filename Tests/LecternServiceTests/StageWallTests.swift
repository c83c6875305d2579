import Foundation
import LecternModel
import LecternDisplay
import LecternPipeline
import LecternRender
import LecternService
import LecternTestSupport
import Synchronization
import XCTest

/// Several panes on the wall (issue 26), pixel by pixel on the virtual display: each pane's
/// source fitted aspect-preserving into it, the bars exact.
final class StageWallTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = Fixtures.tempDir("stage-wall") }

    func makeStage(pages: Int = 4) throws -> (Stage, String, PDFDocument) {
        let store = try ContentStore(dataDir: dir + "/data")
        let path = try Fixtures.numberedDeck(count: pages, in: dir)
        let item = try store.add(fileAt: path)
        let compositor = Compositor(
            settings: .init(width: 1920, height: 1080), idle: IdleScreen(room: "Room", addresses: ["192.0.2.7"], port: 7420),
            documents: { try store.document($0) })
        return (Stage(output: VirtualDisplay(mode: .fullHD), compositor: compositor), item.id, try PDFDocument(path: path))
    }

    /// The pixels of `rect` of `frame`, as a frame of their own.
    func crop(_ frame: Frame, _ rect: PixelRect) -> Frame {
        let out = Frame(width: rect.width, height: rect.height)
        for y in 0..<rect.height { for x in 0..<rect.width { out.setPixel(x: x, y: y, frame.pixel(x: rect.x + x, y: rect.y + y)) } }
        return out
    }

    func testASplitShowsAPageAndAMovingSourceEachFittedWithExactBars() throws {
        let (stage, id, doc) = try makeStage()
        let source = SolidSource(width: 640, height: 480, color: RGB(200, 30, 40))   // 4:3, at its own size
        stage.attach(serial: 3, source)
        try stage.show(WallPlan(layout: .split, panes: [.scene(.page(content: id, page: 2)), .clip(serial: 3)]))
        let page = try Compositor.renderPage(doc, page: 2, settings: .init(width: 960, height: 1080))
        // The moving pane: 960×720 of picture in 960×1080, 180 rows of bars above and below.
        let picture = PixelRect(x: 960, y: 180, width: 960, height: 720)
        try eventually("the source's frames in the right pane") {
            let f = stage.screenshot()
            return f.isUniform(picture, RGB(200, 30, 40)) && f.pixel(x: 961, y: 179) == .black
        }
        XCTAssertGreaterThan(source.taken, 0)
        let f = stage.screenshot()
        XCTAssertEqual(PixelCompare.differingPixels(crop(f, PixelRect(x: 0, y: 0, width: 960, height: 1080)), page), 0, "the page pane")
        XCTAssertTrue(f.isUniform(PixelRect(x: 960, y: 0, width: 960, height: 180), .black), "the bar above")
        XCTAssertTrue(f.isUniform(PixelRect(x: 960, y: 900, width: 960, height: 180), .black), "the bar below")
        XCTAssertTrue(f.isUniform(picture, RGB(200, 30, 40)))
        // The page's box for the ink: inside the left pane.
        let box = try XCTUnwrap(stage.pageBoxes.first ?? nil)
        XCTAssertLessThanOrEqual(box.x + box.width, 0.5 + 1e-9)
        XCTAssertNil(stage.pageBoxes[1])
    }

    func testAQuadShowsFourPagesEachInItsQuarter() throws {
        let (stage, id, doc) = try makeStage()
        try stage.show(WallPlan(layout: .quad, panes: (1...4).map { .scene(.page(content: id, page: $0)) }))
        let f = stage.screenshot()
        for (i, rect) in WallLayout.quad.paneRects(width: 1920, height: 1080).enumerated() {
            let expected = try Compositor.renderPage(doc, page: i + 1, settings: .init(width: rect.width, height: rect.height))
            XCTAssertEqual(PixelCompare.differingPixels(crop(f, rect), expected), 0, "pane \(i)")
        }
        // And back to one page over the whole wall: today's frame exactly.
        try stage.show(.page(content: id, page: 3))
        XCTAssertEqual(PixelCompare.differingPixels(stage.screenshot(), try Compositor.renderPage(doc, page: 3, settings: stage.compositor.settings)), 0)
    }

    func testAStackShowsTwoPagesEachInItsHalfWithExactBars() throws {
        let (stage, id, doc) = try makeStage()
        try stage.show(WallPlan(layout: .stack, panes: [.scene(.page(content: id, page: 1)), .scene(.page(content: id, page: 2))]))
        let f = stage.screenshot()
        let rects = WallLayout.stack.paneRects(width: 1920, height: 1080)
        XCTAssertEqual(rects, [PixelRect(x: 0, y: 0, width: 1920, height: 540), PixelRect(x: 0, y: 540, width: 1920, height: 540)])
        for (i, rect) in rects.enumerated() {
            // Each page fitted into 1920×540 (bars left and right), exactly as a page alone.
            let expected = try Compositor.renderPage(doc, page: i + 1, settings: .init(width: rect.width, height: rect.height))
            XCTAssertEqual(PixelCompare.differingPixels(crop(f, rect), expected), 0, "pane \(i)")
            XCTAssertEqual(f.pixel(x: 2, y: rect.y + 270), .black, "pane \(i)'s bar")
        }
    }

    func testAPictureInPictureInsetsTheSecondPaneOverTheFirst() throws {
        let (stage, id, doc) = try makeStage()
        let source = SolidSource(width: 640, height: 480, color: RGB(30, 200, 40))   // 4:3
        stage.attach(serial: 5, source)
        try stage.show(WallPlan(layout: .pip, panes: [.scene(.page(content: id, page: 1)), .clip(serial: 5)]))
        // The inset: a quarter of the wall's width and height, 48 px (2.5 %) from the corner.
        let inset = WallLayout.pip.paneRects(width: 1920, height: 1080)[1]
        XCTAssertEqual(inset, PixelRect(x: 1392, y: 762, width: 480, height: 270))
        // 4:3 in 480×270: 360×270 of picture, 60 columns of bars each side.
        let picture = PixelRect(x: 1452, y: 762, width: 360, height: 270)
        try eventually("the source's frames in the inset") { stage.screenshot().isUniform(picture, RGB(30, 200, 40)) }
        let f = stage.screenshot()
        XCTAssertTrue(f.isUniform(PixelRect(x: 1392, y: 762, width: 60, height: 270), .black), "the inset's left bar")
        XCTAssertTrue(f.isUniform(PixelRect(x: 1812, y: 762, width: 60, height: 270), .black), "the inset's right bar")
        // The main pane is the page over the whole wall, exactly, everywhere outside the inset.
        let page = try Compositor.renderPage(doc, page: 1, settings: stage.compositor.settings)
        var outside = 0
        for y in 0..<1080 {
            for x in 0..<1920 where !inset.contains(x: x, y: y) && f.pixel(x: x, y: y) != page.pixel(x: x, y: y) { outside += 1 }
        }
        XCTAssertEqual(outside, 0, "the main pane outside the inset")
    }
}

/// A moving source of one colour at its own size: a frame at every refresh.
final class SolidSource: PaneVideoSource {
    let frame: Frame
    private let count = Mutex(0)
    init(width: Int, height: Int, color: RGB) { frame = Frame(width: width, height: height, color: color) }
    func frame(forRefreshAt refresh: Double, refreshPeriod: Double) -> Frame? {
        count.withLock { $0 += 1 }
        return frame
    }
    func presented(at time: Double) {}
    func resize(width: Int, height: Int) {}
    var taken: Int { count.withLock { $0 } }
}
