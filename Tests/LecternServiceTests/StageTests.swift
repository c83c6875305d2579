import Foundation
import LecternModel
import LecternDisplay
import LecternPipeline
import LecternRender
import LecternService
import LecternTestSupport
import XCTest

final class StageTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = Fixtures.tempDir("stage") }

    func makeStage(pages: Int = 5, mode: DisplayMode = .fullHD) throws -> (Stage, ContentStore, String) {
        let store = try ContentStore(dataDir: dir + "/data")
        let item = try store.add(fileAt: try Fixtures.numberedDeck(count: pages, in: dir))
        let display = VirtualDisplay(mode: mode)
        let compositor = Compositor(
            settings: .init(width: mode.width, height: mode.height),
            idle: IdleScreen(room: "Room 4.12", addresses: ["192.0.2.7"], port: 7420),
            documents: { try store.document($0) })
        return (Stage(output: display, compositor: compositor), store, item.id)
    }

    func testNeighboursArePrerenderedNextFirstThenPrevious() throws {
        let (stage, _, id) = try makeStage()
        let c = stage.compositor
        try stage.show(.page(content: id, page: 3))
        XCTAssertEqual(c.renderCount, 1)
        c.waitForPrerender()
        XCTAssertEqual(c.prerenderCount, 2)   // pages 4 and 2
        let hitsBefore = c.cache.statistics.hits
        try stage.show(.page(content: id, page: 4))   // a neighbour: no rendering
        XCTAssertEqual(c.renderCount, 1, "page 4 was rendered on demand instead of coming from the cache")
        XCTAssertEqual(c.cache.statistics.hits, hitsBefore + 1)
        c.waitForPrerender()
        XCTAssertEqual(c.prerenderCount, 3)   // page 5; page 3 was already cached
        try stage.show(.page(content: id, page: 3))   // back: cached too
        XCTAssertEqual(c.renderCount, 1)
        // And the output shows exactly the frame the pipeline renders for that page.
        let expected = try Compositor.renderPage(try PDFDocument(path: dir + "/numbered.pdf"), page: 3, settings: c.settings)
        XCTAssertEqual(PixelCompare.differingPixels(stage.screenshot(), expected), 0, "pixels differ")
    }

    /// A whiteboard is drawn once per look and kept like a page: showing it again takes
    /// the same frame from the cache (it used to allocate and fill a new frame every time).
    func testAWhiteboardIsKeptLikeAPage() throws {
        let (stage, _, _) = try makeStage()
        let c = stage.compositor
        let board = Whiteboard.hex(black: false)
        let first = try c.frame(for: .page(content: board, page: 1))
        let hits = c.cache.statistics.hits
        let again = try c.frame(for: .page(content: board, page: 1))
        XCTAssertTrue(first === again, "the whiteboard was drawn again")
        XCTAssertEqual(c.cache.statistics.hits, hits + 1)
        XCTAssertEqual(c.renderCount, 0, "a whiteboard is not a render")
        try stage.show(.page(content: board, page: 1))
        XCTAssertEqual(PixelCompare.differingPixels(stage.screenshot(), first), 0)
    }

    func testPrerenderStopsAtTheDocumentEnds() throws {
        let (stage, _, id) = try makeStage(pages: 2)
        try stage.show(.page(content: id, page: 1))
        stage.compositor.waitForPrerender()
        XCTAssertEqual(stage.compositor.prerenderCount, 1)   // only page 2 exists next to page 1
    }

    func testABadPageKeepsThePreviousFrame() throws {
        let (stage, _, id) = try makeStage(pages: 2)
        try stage.show(.page(content: id, page: 2))
        let before = stage.screenshot()
        XCTAssertThrowsError(try stage.show(.page(content: id, page: 9))) {
            XCTAssertEqual($0 as? ContentError, .pageOutOfRange(page: 9, pageCount: 2))
        }
        XCTAssertEqual(stage.scene, .page(content: id, page: 2))
        XCTAssertEqual(PixelCompare.differingPixels(stage.screenshot(), before), 0)
    }

    func testBlankIsExactlyOneColour() throws {
        let (stage, _, _) = try makeStage()
        try stage.show(.blank(.white))
        XCTAssertTrue(stage.screenshot().isUniform(stage.screenshot().bounds, .white))
        try stage.show(.blank(.black))
        XCTAssertTrue(stage.screenshot().isUniform(stage.screenshot().bounds, .black))
    }

    func testVirtualDisplayPacesPresentsToItsRefresh() throws {
        let display = VirtualDisplay(mode: DisplayMode(width: 64, height: 48, refresh: 50))
        let frame = Frame(width: 64, height: 48, color: .white)
        var times: [Double] = []
        for _ in 0..<4 {
            try display.present(frame)
            times.append(display.lastPresentTime)
        }
        XCTAssertEqual(display.presentCount, 4)
        for (a, b) in zip(times, times.dropFirst()) {
            // Each present lands on a later refresh, a whole number of periods apart.
            let periods = (b - a) / 0.02
            XCTAssertGreaterThanOrEqual(periods, 0.999)
            XCTAssertEqual(periods, periods.rounded(), accuracy: 1e-6)
        }
        XCTAssertEqual(display.readBack().pixel(x: 10, y: 10), .white)
    }

    func testVirtualDisplayHonoursItsMode() throws {
        let display = VirtualDisplay(mode: DisplayMode(width: 1280, height: 1024, refresh: 75))
        XCTAssertEqual(display.readBack().width, 1280)
        XCTAssertEqual(display.readBack().height, 1024)
        XCTAssertEqual(display.name, "virtual 1280x1024@75")
    }
}

final class IdleScreenTests: XCTestCase {
    func testIdleScreenShowsRoomAndConnectionInLargeText() throws {
        let screen = IdleScreen(room: "Room 4.12", addresses: ["192.0.2.7"], port: 7420)
        let frame = Frame(width: 1920, height: 1080)
        screen.draw(into: frame)
        // Corners stay background.
        XCTAssertEqual(frame.pixel(x: 0, y: 0), .black)
        XCTAssertEqual(frame.pixel(x: 1919, y: 1079), .black)
        // The room name: the rows with text in the band where it is drawn are tall enough to
        // read from the back of a room (at least 1/15 of the screen).
        func rowsWithText(_ y0: Int, _ y1: Int) -> [Int] {
            (y0..<y1).filter { y in (0..<1920).contains { frame.pixel(x: $0, y: y) != .black } }
        }
        let nameRows = rowsWithText(300, 500)
        XCTAssertGreaterThanOrEqual(
            (nameRows.last ?? 0) - (nameRows.first ?? 0), 1080 / 15,
            "room name too small or missing")
        let connectRows = rowsWithText(520, 700)
        XCTAssertGreaterThanOrEqual(connectRows.count, 20, "the connect line is missing")
        // Text is centred: the leftmost and rightmost text columns are symmetric.
        let cols = (0..<1920).filter { x in nameRows.contains { frame.pixel(x: x, y: $0) != .black } }
        XCTAssertLessThan(abs((cols.first ?? 0) - (1919 - (cols.last ?? 0))), 12)
        XCTAssertEqual(screen.connectLine, "Connect to 192.0.2.7  —  port 7420")
    }

    func testTheFontIsTheOneTheDepsScriptInstalls() throws {
        let r = try Fixtures.run("fc-match", [IdleScreen.fontFamily])
        XCTAssertTrue(
            String(decoding: r.out, as: UTF8.self).contains("DejaVuSans"),
            "fc-match found \(String(decoding: r.out, as: UTF8.self))")
    }

    func testLightBackgroundGetsDarkText() {
        XCTAssertEqual(IdleScreen(room: "", addresses: [], port: 1, background: .white).textColor, RGB(20, 20, 20))
        XCTAssertEqual(IdleScreen(room: "", addresses: [], port: 1, background: .black).textColor, RGB(240, 240, 240))
    }
}

final class IdleQRTests: XCTestCase {
    func testTheIdleScreensQRCodeDecodesToTheAdvertisedAddress() throws {
        let url = "http://192.0.2.7:8080/"
        let screen = IdleScreen(room: "Room 4.12", addresses: ["192.0.2.7"], port: 7420, url: url)
        let frame = Frame(width: 1920, height: 1080)
        screen.draw(into: frame)
        let path = Fixtures.tempDir("qr") + "/idle.png"
        try PNG.write(frame, to: path)
        let r = try Fixtures.run("zbarimg", ["--raw", "-q", path])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(String(decoding: r.out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), url)
        // The URL is also written on the screen, and the room name still fits beside the code.
        XCTAssertTrue(frame.isUniform(PixelRect(x: 0, y: 0, width: 40, height: 40), .black))
    }
}
