import Foundation
import LecternModel
import LecternPipeline
import LecternRender
import LecternTestSupport
import Synchronization
import XCTest

@testable import LecternConvert

/// The first slide sooner (docs/protocol.md §30.8), against real LibreOffice in its real
/// sandbox: page 1 comes first as a PDF of its own (the first slide shown, a hidden one
/// left out), it is the same, pixel for pixel, as page 1 of the whole deck that follows,
/// and the pictures go into the PDF as the document has them (a JPEG's own bytes).
final class OfficeFirstPageTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = Fixtures.tempDir("office-first") }

    func converter() -> OfficeConverter {
        let c = OfficeConverter(root: dir + "/sandboxes", warm: false)
        XCTAssertNil(c.unavailable, "LibreOffice, python3-uno and bubblewrap are installed by board/install-deps")
        return c
    }

    func testPageOneComesFirstAloneAndIsPageOneOfTheWholeDeck() throws {
        let deck = dir + "/deck.pptx"
        // Slide 1 hidden: the deck's page 1 is slide 2.
        try OfficeDocuments.pptx(deck, slides: 5, hidden: [1])
        let first = dir + "/first.pdf", whole = dir + "/whole.pdf"
        let events = Mutex<[String]>([])
        let made = Mutex<FirstPageMade?>(nil)
        let request = FirstPageRequest(path: first) { m in
            made.withLock { $0 = m }
            events.withLock { $0.append("first") }
        }
        let job = ConversionJob(
            input: deck, output: whole, workDirectory: dir, name: "deck.pptx", format: OfficeFormats.pptx, limits: ConversionLimits(), firstPage: request)
        // "progress 0 N" comes as the document is loaded, before any export.
        let deckMade = try converter().convert(job, progress: { done, _ in if done > 0 { events.withLock { $0.append("progress") } } }, stop: ConversionStop())

        XCTAssertEqual(events.withLock { $0.first }, "first", "page 1 alone before any page of the whole")
        XCTAssertEqual(events.withLock { $0.filter { $0 == "first" }.count }, 1)
        XCTAssertEqual(made.withLock { $0?.pagesInAll }, 4, "the pages of the whole, hidden slides left out")
        XCTAssertEqual(made.withLock { $0?.notes[1] }, "Speaker notes for slide 2", "notes by the page they are on")
        XCTAssertEqual(deckMade.pages, 4)
        XCTAssertEqual(deckMade.notes[4], "Speaker notes for slide 5")

        let alone = try PDFDocument(path: first)
        XCTAssertEqual(alone.pageCount, 1)
        let text = String(decoding: try Fixtures.run("pdftotext", [first, "-"]).out, as: UTF8.self)
        XCTAssertTrue(text.contains("Slide 2 title"), text)
        let settings = Compositor.Settings(width: 1920, height: 1080)
        let a = try Compositor.renderPage(alone, page: 1, settings: settings)
        let b = try Compositor.renderPage(PDFDocument(path: whole), page: 1, settings: settings)
        XCTAssertEqual(PixelCompare.differingPixels(a, b), 0, "page 1 alone is page 1 of the whole deck")
    }

    /// LibreOffice's default export decodes each picture and compresses it again; here the
    /// picture's own JPEG bytes are in the PDF.
    func testPicturesGoIntoThePDFAsTheDocumentHasThem() throws {
        let deck = dir + "/photos.pptx"
        try OfficeDocuments.pptx(deck, slides: 2, pictureSize: 800)
        let job = ConversionJob(input: deck, output: dir + "/out.pdf", workDirectory: dir, name: "photos.pptx", format: OfficeFormats.pptx, limits: ConversionLimits())
        _ = try converter().convert(job, progress: { _, _ in }, stop: ConversionStop())
        let picture = try Fixtures.run("python3", ["-c", "import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read('ppt/media/image2.jpg'))", deck]).out
        XCTAssertGreaterThan(picture.count, 10_000)
        let pdf = try Data(contentsOf: URL(fileURLWithPath: dir + "/out.pdf"))
        XCTAssertNotNil(pdf.range(of: Data(picture)), "slide 2's JPEG, byte for byte")
    }

    // MARK: what the sandbox leaves is hostile

    func testALinkOrASecondNameInTheSandboxsOutputIsNotFollowed() throws {
        let secret = dir + "/secret.pdf"
        try Data("%PDF-1.4 secret of the host".utf8).write(to: URL(fileURLWithPath: secret))
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: out + "/deck.pdf", withDestinationPath: secret)
        XCTAssertThrowsError(try SandboxOutput.take(out + "/deck.pdf", to: dir + "/taken.pdf", limit: 1 << 20)) {
            XCTAssertEqual($0 as? SandboxOutput.Refusal, .notARegularFile)
        }
        XCTAssertEqual(link(secret, out + "/first.pdf"), 0)
        XCTAssertThrowsError(try SandboxOutput.take(out + "/first.pdf", to: dir + "/taken.pdf", limit: 1 << 20)) {
            XCTAssertEqual($0 as? SandboxOutput.Refusal, .notARegularFile, "a second name of a file the sandbox could reach")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/taken.pdf"))
        XCTAssertNil(SandboxOutput.contents(out + "/deck.pdf", limit: 100), "notes are not read through a link")

        try Data(repeating: 7, count: 5000).write(to: URL(fileURLWithPath: out + "/big.pdf"))
        XCTAssertThrowsError(try SandboxOutput.take(out + "/big.pdf", to: dir + "/taken.pdf", limit: 4096)) {
            XCTAssertEqual($0 as? SandboxOutput.Refusal, .tooLarge(4096))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/taken.pdf"), "nothing kept past the bound")
        try SandboxOutput.take(out + "/big.pdf", to: dir + "/taken.pdf", limit: 5000)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/taken.pdf")), Data(repeating: 7, count: 5000))
    }
}
