import Foundation
import LecternModel
import LecternSystem
import LecternPipeline
import LecternRender
import LecternTestSupport
import XCTest

/// One render worker process (`lecternd --render-worker`), driven directly: its pages are
/// the in-process pipeline's to the pixel, a page past its budget costs a kill and a
/// respawn and nothing more, and `cancel()` stops a page at once.
final class RenderWorkerProcessTests: XCTestCase {
    let settings = Compositor.Settings(width: 640, height: 360, background: RGB(10, 20, 30), overscanPercent: 2)

    func makeWorker() throws -> RenderWorker {
        RenderWorker(name: "test", executable: try Fixtures.binary("lecternd"), limits: .init(memoryBytes: 192 << 20, cpuSeconds: 10))
    }

    /// A page of 10⁶ paths (form XObjects ten deep, six levels): seconds to draw anywhere.
    static func timeBomb(in dir: String) throws -> String {
        var pdf = RawPDF()
        var form = pdf.addForm(bbox: [0, 0, 600, 450], "0 0 1 rg 0 0 m 10 10 l 20 0 l f")
        for _ in 0..<6 {
            let draws = (0..<10).map { j in "q 0.9 0 0 0.9 \(j % 7) \(j % 5) cm /X Do Q" }.joined(separator: "\n")
            form = pdf.addForm(bbox: [0, 0, 600, 450], resources: "/XObject << /X \(form) 0 R >>", draws)
        }
        let content = pdf.addStream("", "/X Do")
        _ = pdf.addPage("/MediaBox [0 0 600 450] /Contents \(content) 0 R /Resources << /XObject << /X \(form) 0 R >> >>")
        let path = dir + "/bomb.pdf"
        try pdf.write(to: path)
        return path
    }

    func testPagesComeBackExactlyAsDrawnInProcessWhileBuffersAreReused() throws {
        let dir = Fixtures.tempDir("worker")
        let deck = try Fixtures.numberedDeck(count: 3, in: dir)
        let worker = try makeWorker()
        defer { worker.stop() }
        let doc = try PDFDocument(path: deck)
        for round in 0..<6 {
            let page = round % 3 + 1
            let frame = try worker.render(path: deck, page: page, settings: settings, budget: 10).frame
            let expected = try Compositor.renderPage(doc, page: page, settings: settings)
            XCTAssertEqual(PixelCompare.differingPixels(frame, expected), 0, "page \(page), round \(round)")
        }
        for part in [PagePart.left, .bottom] {   // a beamer deck's half, fitted as a page
            let frame = try worker.render(path: deck, page: 1, settings: settings, part: part, budget: 10).frame
            XCTAssertEqual(PixelCompare.differingPixels(frame, try Compositor.renderPage(doc, page: 1, settings: settings, part: part)), 0, "\(part)")
        }
        XCTAssertEqual(worker.spawns, 1)
        XCTAssertThrowsError(try worker.render(path: deck, page: 9, settings: settings, budget: 10)) {
            XCTAssertEqual($0 as? ContentError, .pageOutOfRange(page: 9, pageCount: 3))
        }
    }

    /// The reply carries where the page (or the part shown) sits and the page's `/Trans`:
    /// what the service used to open the PDF itself for (issue 26).
    func testThePageBoxAndTheTransitionComeWithThePage() throws {
        let dir = Fixtures.tempDir("worker")
        let deck = try Fixtures.transitionDeck(
            [RGB(200, 0, 0), RGB(0, 200, 0), RGB(0, 0, 200)], transitions: ["/S /Fade /D 0.5", nil, "/S /Wipe /Di 90 /D 1.5"], in: dir)
        let worker = try makeWorker()
        defer { worker.stop() }
        let doc = try PDFDocument(path: deck)
        let square = Compositor.Settings(width: 600, height: 600, background: RGB(10, 20, 30), overscanPercent: 0)
        for page in 1...3 {
            for (look, part) in [(settings, PagePart.whole), (square, .whole), (settings, .left), (square, .top)] {
                let drawn = try worker.render(path: deck, page: page, settings: look, part: part, budget: 10)
                let shape = part.shape(of: try doc.shape(page: page))
                XCTAssertEqual(
                    drawn.pageRect, Fit.rect(for: shape, width: look.width, height: look.height, overscanPercent: look.overscanPercent),
                    "page \(page), \(part) at \(look.width)x\(look.height)")
                XCTAssertEqual(drawn.transition, doc.transition(page: page), "page \(page)")
            }
        }
        XCTAssertEqual(try worker.render(path: deck, page: 1, settings: settings, budget: 10).transition, .fade(0.5))
        XCTAssertNil(try worker.render(path: deck, page: 2, settings: settings, budget: 10).transition)
        XCTAssertEqual(try worker.render(path: deck, page: 3, settings: settings, budget: 10).transition?.style, .wipe)
    }

    func testPastTheBudgetTheWorkerIsReplacedAndTheNextPageWaitsOnlyForThat() throws {
        let dir = Fixtures.tempDir("worker")
        let bomb = try Self.timeBomb(in: dir)
        let deck = try Fixtures.numberedDeck(count: 2, in: dir)
        let worker = try makeWorker()
        defer { worker.stop() }
        _ = try worker.render(path: deck, page: 1, settings: settings, budget: 10)   // started and warm
        let first = worker.processID

        let start = MonotonicClock.now()
        XCTAssertThrowsError(try worker.render(path: bomb, page: 1, settings: settings, budget: 0.3)) {
            XCTAssertEqual($0 as? ContentError, .tooSlow(page: 1, seconds: 0.3))
        }
        // The worker had drawn a page: tried once more on a fresh one (WorkerUpkeep), which
        // is killed at its own budget too.
        XCTAssertLessThan(MonotonicClock.now() - start, 2, "given up at two budgets")
        XCTAssertEqual(worker.kills, 2)
        XCTAssertEqual(worker.retries, 1)
        XCTAssertNotEqual(worker.processID, first, "a fresh worker took its place")
        XCTAssertEqual(kill(first, 0), -1, "the old one is gone")

        let next = MonotonicClock.now()
        let frame = try worker.render(path: deck, page: 2, settings: settings, budget: 10).frame
        XCTAssertLessThan(MonotonicClock.now() - next, 1.5, "the next page waited for more than a respawn")
        XCTAssertEqual(PixelCompare.differingPixels(frame, try Compositor.renderPage(PDFDocument(path: deck), page: 2, settings: settings)), 0)
    }

    func testCancelStopsAPageAtOnce() throws {
        let dir = Fixtures.tempDir("worker")
        let bomb = try Self.timeBomb(in: dir)
        let worker = try makeWorker()
        defer { worker.stop() }
        let outcome = Outcome()
        let settings = self.settings
        let thread = Thread {
            do { _ = try worker.render(path: bomb, page: 1, settings: settings, budget: 60) } catch { outcome.set(error) }
        }
        thread.start()
        try eventually("the bomb is being drawn", timeout: 10) { worker.rendering }
        let start = MonotonicClock.now()
        worker.cancel()
        try eventually("the render answered", timeout: 2) { outcome.error != nil }
        XCTAssertLessThan(MonotonicClock.now() - start, 2)
        XCTAssertTrue(outcome.error is RenderWorker.Cancelled, "\(String(describing: outcome.error))")
        XCTAssertEqual(worker.deaths, 0, "a cancel is not a crash")
    }
}

private final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var _error: Error?
    func set(_ e: Error) { lock.withLock { _error = e } }
    var error: Error? { lock.withLock { _error } }
}
