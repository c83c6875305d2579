import Foundation
import LecternClient
import LecternModel
@testable import LecternPipeline
import LecternRender
import LecternService
import LecternTestSupport
import XCTest

/// Long-running render workers (`WorkerUpkeep`, docs/protocol.md §10): a worker that has
/// grown is replaced between pages before its growth eats the page budget, and a page a
/// grown worker refuses is tried once more on a fresh one before it is remembered as slow.
/// Real workers (`lecternd --render-worker`) and real pages: the growth is a document the
/// worker holds open whose cross-reference table claims 2²¹ objects (poppler keeps an entry
/// for each: ~80 MB), the page one big image.
final class WorkerRecyclingTests: XCTestCase {
    static let budgetMB = 192
    let settings = Compositor.Settings(width: 640, height: 360)

    func makeWorker() throws -> RenderWorker {
        RenderWorker(name: "test", executable: try Fixtures.binary("lecternd"), limits: .init(memoryBytes: Self.budgetMB << 20, cpuSeconds: 20))
    }

    /// One plain page; the file's cross-reference table has one more (free) entry at
    /// object 2²¹ − 1, so poppler makes room for 2²¹ entries when it opens it.
    static func fatDeck(in dir: String) throws -> String {
        var pdf = RawPDF()
        let content = pdf.addStream("", "0.2 0.6 0.3 rg 100 100 300 200 re f")
        _ = pdf.addPage("/MediaBox [0 0 600 450] /Contents \(content) 0 R")
        var text = String(decoding: try pdf.data(), as: UTF8.self)
        let entries = 1 << 21
        let trailer = try XCTUnwrap(text.range(of: "trailer\n<< /Size "))
        text.replaceSubrange(trailer, with: "\(entries - 1) 1\n0000000000 65535 f\r\ntrailer\n<< /Size \(entries) /Old ")
        let path = dir + "/fat.pdf"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// One page drawing an RGB image of `side`² pixels (cairo needs side² × 4 bytes for it).
    static func imageDeck(side: Int, in dir: String) throws -> String {
        var pdf = RawPDF()
        let image = pdf.addStream(
            "/Type /XObject /Subtype /Image /Width \(side) /Height \(side) /ColorSpace /DeviceRGB /BitsPerComponent 8", "0123456789abcdef")
        let content = pdf.addStream("", "q 600 0 0 450 0 0 cm /Im Do Q")
        _ = pdf.addPage("/MediaBox [0 0 600 450] /Contents \(content) 0 R /Resources << /XObject << /Im \(image) 0 R >> >>")
        let path = dir + "/image-\(side).pdf"
        try pdf.write(to: path)
        return path
    }

    /// The big page's side: 156 MB, the issue's page; it fits the 192 MB budget on a fresh
    /// worker, not beside the fat deck.
    static let side = 6250

    /// The fat deck is the worker's first page (its baseline: no growth seen, no recycle);
    /// the big page then is refused by it, tried on a fresh worker, and drawn.
    func testAPageAGrownWorkerRefusesIsTriedOnAFreshOneAndShown() throws {
        let dir = Fixtures.tempDir("recycle")
        let fat = try Self.fatDeck(in: dir)
        let big = try Self.imageDeck(side: Self.side, in: dir)
        let worker = try makeWorker()
        defer { worker.stop() }
        _ = try worker.render(path: fat, page: 1, settings: settings, budget: 20)
        XCTAssertEqual(worker.recycles, 0)
        let frame = try worker.render(path: big, page: 1, settings: settings, budget: 20).frame
        XCTAssertEqual(worker.retries, 1, "refused beside the fat deck, drawn by a fresh worker")
        XCTAssertEqual(worker.spawns, 2)
        XCTAssertEqual(PixelCompare.differingPixels(frame, try Compositor.renderPage(PDFDocument(path: big), page: 1, settings: settings)), 0)

        // A page a fresh worker refuses too is the page's own: refused.
        let bomb = try Self.imageDeck(side: 20000, in: dir)
        XCTAssertThrowsError(try worker.render(path: bomb, page: 1, settings: settings, budget: 20)) {
            guard case .overLimits(page: 1, megabytes: Self.budgetMB) = $0 as? ContentError else { return XCTFail("\($0)") }
        }
    }

    /// A worker that grew (the fat deck after a plain first page) is replaced between
    /// pages: the big page is drawn at the first try.
    func testAWorkerThatGrewIsReplacedBetweenPages() throws {
        let dir = Fixtures.tempDir("recycle")
        let plain = try Fixtures.numberedDeck(count: 2, in: dir)
        let fat = try Self.fatDeck(in: dir)
        let big = try Self.imageDeck(side: Self.side, in: dir)
        let worker = try makeWorker()
        defer { worker.stop() }
        _ = try worker.render(path: plain, page: 1, settings: settings, budget: 20)
        _ = try worker.render(path: plain, page: 2, settings: settings, budget: 20)
        XCTAssertEqual(worker.recycles, 0, "a worker that doesn't grow is kept")
        _ = try worker.render(path: fat, page: 1, settings: settings, budget: 20)
        XCTAssertEqual(worker.recycles, 1, "grown by the fat deck: replaced")
        XCTAssertEqual(worker.spawns, 2)
        let frame = try worker.render(path: big, page: 1, settings: settings, budget: 20).frame
        XCTAssertEqual(worker.retries, 0, "drawn at the first try")
        XCTAssertEqual(PixelCompare.differingPixels(frame, try Compositor.renderPage(PDFDocument(path: big), page: 1, settings: settings)), 0)
    }

    /// The issue's case through the service (TLS, as it ships): the wall's worker holds a
    /// document that grew it; the 156 MB page is shown (tried on a fresh worker), not
    /// refused, and not written to slow-pages.
    func testTheServiceShowsAPageItsGrownWallWorkerRefused() throws {
        let h = try ServiceHarness(floor: .open) { c in
            c.tls = true
            c.renderMemoryMB = Self.budgetMB
            c.renderBudget = 20
        }
        let ana = try LecternConnection(host: "127.0.0.1", port: h.port, tls: .pinned(try XCTUnwrap(h.service.tlsIdentity).fingerprint))
        try ana.register(name: "Ana", role: .presenter, passcode: ServiceHarness.presenterPass)
        _ = try ana.requestFloor()
        let fat = try ana.upload(path: Self.fatDeck(in: h.dir))
        let bigPath = try Self.imageDeck(side: Self.side, in: h.dir)
        let big = try ana.upload(path: bigPath)
        let wall = try XCTUnwrap(h.service.workers?.wall)
        try ana.present(fat.content, page: 1)
        XCTAssertEqual(wall.recycles, 0, "the fat deck was the worker's first page")
        try ana.present(big.content, page: 1)
        XCTAssertEqual(wall.retries, 1, "refused by the grown worker, tried on a fresh one")
        XCTAssertEqual(PixelCompare.differingPixels(try PNG.decode(ana.screenshot()), try h.expectedFrame(pdf: bigPath, page: 1)), 0)
        XCTAssertFalse(h.service.stage.compositor.isSlow(content: big.content.hex, page: 1))
        let slow = (try? String(contentsOfFile: h.dir + "/data/slow-pages", encoding: .utf8)) ?? ""
        XCTAssertFalse(slow.contains(big.content.hex), slow)
    }
}
