import Foundation
import LecternModel
import LecternPipeline
import LecternRender
import LecternTestSupport
import XCTest

/// PDFs made here with cairo, rendered through the service's pipeline, checked pixel by
/// pixel: bars, content placement, and closeness to pdftoppm's render.
final class PageRenderTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = Fixtures.tempDir("render") }

    struct Case {
        var name: String
        var page: PDFSketch.Page
        var mode: (Int, Int)
        var background: RGB = .black
        var overscan = 0.0
        var expectedRect: PixelRect
    }

    func testPagesLandWhereGeometrySaysAndMatchPdftoppm() throws {
        let cases: [Case] = [
            Case(
                name: "4:3", page: Fixtures.quadrantPage(width: 720, height: 540), mode: (1920, 1080),
                expectedRect: .init(x: 240, y: 0, width: 1440, height: 1080)),
            Case(
                name: "16:9", page: Fixtures.quadrantPage(width: 960, height: 540), mode: (1920, 1080),
                expectedRect: .init(x: 0, y: 0, width: 1920, height: 1080)),
            Case(
                name: "portrait A4", page: Fixtures.quadrantPage(width: 595, height: 842), mode: (1920, 1080),
                expectedRect: .init(x: 578, y: 0, width: 763, height: 1080)),
            Case(
                name: "A4 with /Rotate 90", page: Fixtures.quadrantPage(width: 595, height: 842, rotate: 90), mode: (1920, 1080),
                expectedRect: .init(x: 196, y: 0, width: 1528, height: 1080)),
            Case(
                name: "4:3 on 5:4 with grey bars", page: Fixtures.quadrantPage(width: 720, height: 540), mode: (1280, 1024),
                background: RGB(64, 64, 64), expectedRect: .init(x: 0, y: 32, width: 1280, height: 960)),
            Case(
                name: "16:9 with 5% overscan", page: Fixtures.quadrantPage(width: 960, height: 540), mode: (1920, 1080),
                overscan: 5, expectedRect: .init(x: 96, y: 54, width: 1728, height: 972)),
        ]
        for c in cases {
            let pdf = try Fixtures.pdf([c.page], in: dir, name: "\(c.name.filter(\.isLetter)).pdf")
            let doc = try PDFDocument(path: pdf)
            let settings = Compositor.Settings(
                width: c.mode.0, height: c.mode.1, background: c.background,
                overscanPercent: c.overscan)
            let frame = try Compositor.renderPage(doc, page: 1, settings: settings)
            let r = c.expectedRect
            XCTAssertEqual(
                Fit.rect(
                    for: try doc.shape(page: 1), width: c.mode.0, height: c.mode.1,
                    overscanPercent: c.overscan), r, c.name)

            // Bars: every pixel outside the content rectangle is exactly the background.
            let bars = [
                PixelRect(x: 0, y: 0, width: c.mode.0, height: r.y),
                PixelRect(x: 0, y: r.maxY, width: c.mode.0, height: c.mode.1 - r.maxY),
                PixelRect(x: 0, y: r.y, width: r.x, height: r.height),
                PixelRect(x: r.maxX, y: r.y, width: c.mode.0 - r.maxX, height: r.height),
            ]
            for b in bars where !b.isEmpty {
                XCTAssertTrue(frame.isUniform(b, c.background), "\(c.name): bar \(b) not \(c.background)")
            }
            // Paper: the content's edges are white (the page border has no box).
            XCTAssertEqual(frame.pixel(x: r.x + 2, y: r.y + 2), .white, c.name)
            XCTAssertEqual(frame.pixel(x: r.maxX - 3, y: r.maxY - 3), .white, c.name)

            // Content: each box's centre, rotated like the page, is its colour.
            let rot = ((c.page.rotate % 360) + 360) % 360
            let centres: [(Double, Double, RGB)] = [
                (0.25, 0.25, Fixtures.red), (0.75, 0.25, Fixtures.green),
                (0.25, 0.75, Fixtures.blue), (0.75, 0.75, Fixtures.yellow),
            ]
            for (u0, v0, color) in centres {
                // A clockwise /Rotate 90 maps page (u, v) to display (1 - v, u).
                let (u, v) = rot == 90 ? (1 - v0, u0) : rot == 180 ? (1 - u0, 1 - v0) : rot == 270 ? (v0, 1 - u0) : (u0, v0)
                let px = r.x + Int(u * Double(r.width)), py = r.y + Int(v * Double(r.height))
                XCTAssertEqual(frame.pixel(x: px, y: py), color, "\(c.name): box centre at \(px),\(py)")
            }

            // The content area is close to pdftoppm's render of the same page at the same size.
            let reference = try Fixtures.pdftoppm(pdf, page: 1, width: r.width, height: r.height)
            let diff = PixelCompare.meanDifference(frame, r, reference)
            XCTAssertLessThan(diff, 1.5, "\(c.name): mean difference from pdftoppm \(diff)")
        }
    }

    func testTextPageIsCloseToPdftoppm() throws {
        let pdf = try Fixtures.numberedDeck(count: 3, in: dir)
        let doc = try PDFDocument(path: pdf)
        XCTAssertEqual(doc.pageCount, 3)
        let settings = Compositor.Settings(width: 1920, height: 1080)
        for page in 1...3 {
            let frame = try Compositor.renderPage(doc, page: page, settings: settings)
            let r = PixelRect(x: 240, y: 0, width: 1440, height: 1080)
            let reference = try Fixtures.pdftoppm(pdf, page: page, width: 1440, height: 1080)
            let diff = PixelCompare.meanDifference(frame, r, reference)
            XCTAssertLessThan(diff, 3.0, "page \(page): mean difference from pdftoppm \(diff)")
        }
    }

    func testPageOutOfRange() throws {
        let doc = try PDFDocument(path: try Fixtures.numberedDeck(count: 2, in: dir))
        XCTAssertThrowsError(try Compositor.renderPage(doc, page: 3, settings: .init(width: 640, height: 480))) {
            XCTAssertEqual($0 as? ContentError, .pageOutOfRange(page: 3, pageCount: 2))
        }
        XCTAssertThrowsError(try doc.shape(page: 0)) {
            XCTAssertEqual($0 as? ContentError, .pageOutOfRange(page: 0, pageCount: 2))
        }
    }

    func testPNGRoundTripIsExact() throws {
        let doc = try PDFDocument(path: try Fixtures.numberedDeck(count: 1, in: dir))
        let frame = try Compositor.renderPage(doc, page: 1, settings: .init(width: 800, height: 600, background: RGB(1, 2, 3)))
        let back = try PNG.decode(PNG.encode(frame))
        XCTAssertEqual(back.width, 800); XCTAssertEqual(back.height, 600)
        XCTAssertEqual(PixelCompare.differingPixels(back, frame), 0, "pixels differ")
        XCTAssertThrowsError(try PNG.decode(Data("not a png".utf8)))
    }
}
