import Foundation
import LecternModel
import LecternPipeline
import LecternRender
import LecternTestSupport
import XCTest

/// Office documents through a real `lecternd` and the real CLI (issue 29, musts 1 and 2): a
/// `.pptx`, a `.docx` and an `.odp` converted in the sandbox and shown as LibreOffice's own
/// `--convert-to pdf` would show them; the speaker notes in `lectern notes`; conversion
/// progress printed; hostile documents refused with their limits, the service unharmed; a
/// converted deck kept across a restart. TLS on, as shipped (the CLI pins the certificate).
final class OfficeDeckTests: XCTestCase {
    typealias Daemon = CLITests.Daemon

    /// What the wall shows of `pdf`'s page at 1280×720 (the daemon's mode), by the pipeline.
    func expected(_ pdf: String, page: Int) throws -> Frame {
        try Compositor.renderPage(PDFDocument(path: pdf), page: page, settings: .init(width: 1280, height: 720))
    }

    func screenshot(_ d: Daemon, name: String) throws -> Frame {
        let shot = d.dir + "/shot-\(UUID().uuidString.prefix(6)).png"
        let r = try d.lectern(["screenshot", shot], name: name)
        XCTAssertEqual(r.status, 0, r.err)
        return try PNG.read(path: shot)
    }

    func testAPptxShowsItsSlideTwoAsLibreOfficeRendersItWithItsNotes() throws {
        let d = try Daemon()
        let deck = d.dir + "/deck.pptx"
        try OfficeDocuments.pptx(deck, slides: 3)
        let shown = try d.lectern(["present", deck, "--page", "2"], name: "ana")
        XCTAssertEqual(shown.status, 0, shown.err + d.process.text)
        // The CLI says what the appliance does with the file while it converts.
        XCTAssertTrue(shown.err.contains("Converting deck.pptx (pptx) · stored, waiting"), shown.err)
        XCTAssertTrue(shown.err.contains("Converting deck.pptx · slide 3 of 3"), shown.err)

        // As lecternd exports: pictures as the document has them (§30.7).
        let reference = try LibreOfficeReference.convert(deck, outDir: d.dir + "/reference", picturesAsTheyAre: true)
        let wall = try screenshot(d, name: "ana")
        let want = try expected(reference, page: 2)
        XCTAssertEqual(PixelCompare.differingPixels(wall, want), 0, "slide 2 on the wall is LibreOffice's own render of it")
        XCTAssertGreaterThan(PixelCompare.differingPixels(wall, try expected(reference, page: 1)), 1000, "and not slide 1")

        let notes = try d.lectern(["notes"], name: "ana")
        XCTAssertEqual(notes.status, 0, notes.err)
        XCTAssertTrue(notes.out.contains("Speaker notes for slide 2"), notes.out)
        let json = try d.lectern(["status", "--json"], name: "ana").out
        XCTAssertTrue(json.contains("\"convertedFrom\":\"pptx\""), json)
        XCTAssertTrue(json.contains("\"kind\":\"pdf\""), json)

        // Shown again: stored already, proved, never sent nor converted again.
        let again = try d.lectern(["present", deck, "--page", "3"], name: "ana")
        XCTAssertEqual(again.status, 0, again.err)
        XCTAssertFalse(again.err.contains("Converting"), again.err)
        XCTAssertEqual(PixelCompare.differingPixels(try screenshot(d, name: "ana"), try expected(reference, page: 3)), 0)
    }

    func testADocxAnOdpAndAKeynoteDeckAreShown() throws {
        let d = try Daemon()
        let docx = d.dir + "/report.docx", odp = d.dir + "/talk.odp", key = d.dir + "/pitch.key"
        try OfficeDocuments.docx(docx, paragraphs: 12)
        try OfficeDocuments.odp(odp, slides: 4)
        try OfficeDocuments.keynote(key, slides: 3)
        for (file, page) in [(docx, 1), (odp, 3), (key, 2)] {
            let r = try d.lectern(["present", file, "--page", "\(page)"], name: "bo")
            XCTAssertEqual(r.status, 0, r.err)
            let reference = try LibreOfficeReference.convert(file, outDir: d.dir + "/reference", picturesAsTheyAre: true)
            XCTAssertEqual(PixelCompare.differingPixels(try screenshot(d, name: "bo"), try expected(reference, page: page)), 0, file)
        }
    }

    /// A zip bomb, a deck of 10,000 slides and a spreadsheet LibreOffice lays out for
    /// minutes: each refused with the limit it went past, named; meanwhile and afterwards the
    /// room answers, and a PDF goes on the wall.
    func testHostileDocumentsAreRefusedWithTheirLimitsAndTheServiceStaysWell() throws {
        let d = try Daemon(extra: "[convert]\ntimeout_seconds = 8\nmax_unpacked_mb = 20")
        let bomb = d.dir + "/bomb.pptx", many = d.dir + "/many.odp", endless = d.dir + "/endless.ods"
        try OfficeDocuments.zipBombPptx(bomb, unpackedMB: 60)
        try OfficeDocuments.manySlidesOdp(many, slides: 10_000)
        try OfficeDocuments.endlessOds(endless)
        let cases: [(String, String)] = [
            (bomb, "unpacks to more than the 20 MB a document may"),
            (many, "has more than the 500 pages a converted document may have"),
            (endless, "took longer than the 8 s a conversion may take"),
        ]
        for (file, limit) in cases {
            let r = try d.lectern(["upload", file], name: "eve")
            XCTAssertEqual(r.status, 10 + 0x13, "\(file): \(r.err)")
            XCTAssertTrue(r.err.contains(limit), "\(file): \(r.err)")
            let status = try d.lectern(["status"], name: "eve")
            XCTAssertEqual(status.status, 0, status.err)
        }
        let pdf = try Fixtures.numberedDeck(count: 2, in: d.dir)
        let shown = try d.lectern(["present", pdf, "--page", "2"], name: "ana")
        XCTAssertEqual(shown.status, 0, shown.err)
        XCTAssertEqual(PixelCompare.differingPixels(try screenshot(d, name: "ana"), try expected(pdf, page: 2)), 0)
        let json = try d.lectern(["status", "--json"], name: "ana").out
        XCTAssertTrue(json.contains("\"conversions\":[]"), json)
    }

    /// The original and its PDF stay in the store: after a restart the deck is shown at
    /// once, nothing converted again.
    func testAConvertedDeckIsKeptAcrossARestart() throws {
        let d = try Daemon()
        let deck = d.dir + "/deck.pptx"
        try OfficeDocuments.pptx(deck, slides: 2)
        let up = try d.lectern(["upload", deck], name: "ana")
        XCTAssertEqual(up.status, 0, up.err)
        let id = up.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let content = d.dir + "/data/content/" + id
        XCTAssertTrue(FileManager.default.fileExists(atPath: content), "the original, under its SHA-256")
        XCTAssertTrue(FileManager.default.fileExists(atPath: content + ".pdf"), "its PDF beside it")
        d.process.kill(SIGTERM)
        _ = d.process.waitForExit()
        let again = try Daemon(reusing: d)
        let shown = try again.lectern(["present", deck, "--page", "2"], name: "ana")
        XCTAssertEqual(shown.status, 0, shown.err)
        XCTAssertFalse(shown.err.contains("Converting"), "not converted again: \(shown.err)")
        XCTAssertFalse(again.process.text.contains("converted deck.pptx"), again.process.text)
    }
}
