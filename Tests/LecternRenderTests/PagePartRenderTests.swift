import Foundation
import LecternModel
import LecternPipeline
@testable import LecternRender
import LecternTestSupport
import XCTest

/// A part of a page (a beamer deck's slide or notes half) rendered by the pipeline: only
/// that part, fitted to the output as a page of its shape would be.
final class PagePartRenderTests: XCTestCase {
    func testEachHalfShowsOnlyItsQuadrantsFittedLikeAPage() throws {
        let dir = Fixtures.tempDir("parts")
        // 1440×540 points: each side half is 720×540 (4:3), each top/bottom half 1440×270 (16:3, 360 px tall at 1920 wide).
        let pdf = try Fixtures.pdf([Fixtures.quadrantPage(width: 1440, height: 540)], in: dir)
        let doc = try PDFDocument(path: pdf)
        let settings = Compositor.Settings(width: 1920, height: 1080)
        let expectations: [(PagePart, PixelRect, [RGB], [RGB])] = [
            (.left, PixelRect(x: 240, y: 0, width: 1440, height: 1080), [Fixtures.red, Fixtures.blue], [Fixtures.green, Fixtures.yellow]),
            (.right, PixelRect(x: 240, y: 0, width: 1440, height: 1080), [Fixtures.green, Fixtures.yellow], [Fixtures.red, Fixtures.blue]),
            (.top, PixelRect(x: 0, y: 360, width: 1920, height: 360), [Fixtures.red, Fixtures.green], [Fixtures.blue, Fixtures.yellow]),
            (.bottom, PixelRect(x: 0, y: 360, width: 1920, height: 360), [Fixtures.blue, Fixtures.yellow], [Fixtures.red, Fixtures.green]),
        ]
        for (part, rect, shown, hidden) in expectations {
            let f = try Compositor.renderPage(doc, page: 1, settings: settings, part: part)
            XCTAssertEqual(f.pixel(x: rect.x - 1 < 0 ? 0 : rect.x - 1, y: rect.y == 0 ? 540 : rect.y - 1), RGB.black, "\(part): bars outside the fitted half")
            XCTAssertEqual(f.pixel(x: rect.x + 2, y: rect.y + 2), RGB.white, "\(part): the paper's corner at the fitted rectangle")
            let colours = Set((0..<20).flatMap { i in (0..<20).map { j in f.pixel(x: rect.x + rect.width * i / 20 + 5, y: rect.y + rect.height * j / 20 + 5) } })
            for c in shown { XCTAssertTrue(colours.contains(c), "\(part) shows \(c)") }
            for c in hidden { XCTAssertFalse(colours.contains(c), "\(part) hides \(c)") }
        }
        // The whole page is the default, and what .whole gives.
        XCTAssertEqual(
            PixelCompare.differingPixels(
                try Compositor.renderPage(doc, page: 1, settings: settings), try Compositor.renderPage(doc, page: 1, settings: settings, part: .whole)), 0)
    }

    /// The rule itself is NotesLayoutDetectionTests' (core); here, the evidence read from
    /// real PDFs: beamer's mark in the Info dictionary (cairo's Creator, pdfTeX's), none on
    /// a bare pair of slide-shaped halves.
    func testTheEvidenceIsReadFromThePDF() throws {
        let dir = Fixtures.tempDir("beamer-evidence")
        let beamer = try PDFDocument(path: Fixtures.beamerNotesDeck(labels: ["1", "2"], in: dir))
        XCTAssertTrue(beamer.namesBeamer)
        XCTAssertEqual(beamer.detectedNotesLayout(), .right)
        let pair = try PDFDocument(path: Fixtures.pdf([Fixtures.quadrantPage(width: 1280, height: 480)], in: dir, name: "pair.pdf"))
        XCTAssertFalse(pair.namesBeamer)
        XCTAssertEqual(pair.detectedNotesLayout(), NotesLayout.none, "slide-shaped halves, no mark: a picture")
        // 1000×400, beamer's mark in the Info dictionary as pdfTeX writes it.
        var raw = RawPDF()
        let content = raw.addStream("", "1 0 0 rg 0 0 500 200 re f")
        _ = raw.addPage("/MediaBox [0 0 1000 400] /Contents \(content) 0 R")
        let info = raw.add("<< /Creator (LaTeX with Beamer class version 3.71) /Producer (pdfTeX-1.40.25) >>")
        let text = String(decoding: try raw.data(), as: UTF8.self).replacingOccurrences(of: "trailer\n<< ", with: "trailer\n<< /Info \(info) 0 R ")
        let marked = dir + "/marked.pdf"
        try Data(text.utf8).write(to: URL(fileURLWithPath: marked))
        let doc = try PDFDocument(path: marked)
        XCTAssertTrue(doc.namesBeamer)
        XCTAssertEqual(doc.detectedNotesLayout(), .right)
    }
}
