import Foundation
import LecternClient
import LecternModel
import LecternSystem
@testable import LecternPipeline
import LecternProtocol
import LecternRender
import LecternService
import LecternTestSupport
import XCTest

/// Pages that take poppler far too long to draw (a "render bomb": a 3 KB page of form
/// XObjects that each draw the one below `fan` times, `depth` levels down, fan^depth
/// paths; 10⁶ take 8 s at 1080p on the 2-core build machine, 10⁷ would take minutes): the
/// moderator's clear doesn't wait for them, the watchdog keeps being fed, the presenter is
/// told past the render budget, and the room goes on working.
final class RenderBombTests: XCTestCase {
    /// A deck of `pages` plain pages (a coloured bar each) where the pages in `bombs` are
    /// render bombs of fan^depth paths (10⁶: seconds anywhere, far past a 0.5 s budget).
    static func deck(pages: Int, bombs: Set<Int>, fan: Int = 10, depth: Int = 6, in dir: String, name: String = "bomb.pdf") throws -> String {
        var pdf = RawPDF()
        var form = pdf.addForm(bbox: [0, 0, 600, 450], "0 0 1 rg 0 0 m 10 10 l 20 0 l f")
        for _ in 0..<depth {
            let draws = (0..<fan).map { j in "q 0.9 0 0 0.9 \(j % 7) \(j % 5) cm /X Do Q" }.joined(separator: "\n")
            form = pdf.addForm(bbox: [0, 0, 600, 450], resources: "/XObject << /X \(form) 0 R >>", draws)
        }
        return try BombDeck.write(&pdf, pages: pages, bombs: bombs, draw: "/X Do", xobjects: "/X \(form) 0 R", to: dir + "/" + name)
    }

    /// The issue's case: a page that never finishes wedged the screen for good. With a
    /// budget far beyond the test (only overtaking can make clear fast), clear answers
    /// within 2 s while the bomb renders, the heartbeat goes on, and then a present works.
    func testClearDuringARenderBombIsAnsweredAtOnceAndTheRoomGoesOn() throws {
        let h = try ServiceHarness(floor: .open) { $0.renderBudget = 60 }
        let beats = Counter()
        h.service.startHeartbeat(interval: 0.1) { beats.add() }
        let ana = try h.presenter("Ana"), mod = try h.moderator()
        _ = try ana.requestFloor()
        // 10⁶ paths: 14 s here, still rendering when the checks below are done anywhere.
        let bomb = try ana.upload(path: Self.deck(pages: 1, bombs: [1], in: h.dir))
        let plain = try Fixtures.numberedDeck(count: 3, in: h.dir)
        let deck = try ana.upload(path: plain)

        // Ana presents the bomb on a thread of hers: its answer comes when it is overtaken.
        let answered = Counter()
        let presenting = Thread {
            do { try ana.present(bomb.content) } catch {
                if (error as? LecternConnection.ClientError)?.lecternError?.code == .nothingOnScreen { answered.add() }
            }
        }
        presenting.start()
        try eventually("the bomb is rendering", timeout: 10) { rendering(h) }

        let start = MonotonicClock.now()
        _ = try mod.request(.clear)
        let latency = MonotonicClock.now() - start
        XCTAssertLessThan(latency, 2, "clear waited \(latency) s behind the bomb")
        try eventually("the bomb's present is answered: not shown") { answered.value == 1 }

        // The clear stopped the bomb: its worker was killed (a fresh one took its place),
        // not left to burn a core for its minutes; the watchdog kept being fed.
        try eventually("the bomb's render is stopped", timeout: 2) { !rendering(h) }
        XCTAssertGreaterThanOrEqual(h.service.workers?.wall.kills ?? 0, 1, "the wall's worker was killed")
        XCTAssertFalse(h.service.stage.compositor.isSlow(content: bomb.content.hex, page: 1), "overtaken, not judged slow")
        let before = beats.value
        try eventually("heartbeats after the bomb", timeout: 5) { beats.value >= before + 5 }

        // Later presents work at once (not after the bomb's budget), and show exactly their page.
        let later = MonotonicClock.now()
        try ana.present(deck.content, page: 2)
        XCTAssertLessThan(MonotonicClock.now() - later, 5, "the next present waited behind the bomb")
        let shot = try PNG.decode(mod.screenshot())
        XCTAssertEqual(PixelCompare.differingPixels(shot, try h.expectedFrame(pdf: plain, page: 2)), 0, "pixels differ")
    }

    /// Past the budget: the presenter is told why, the previous frame stays, the page is
    /// never drawn again, and the deck's other pages still show.
    func testAPageOverTheBudgetIsRefusedAndThePreviousFrameStays() throws {
        let h = try ServiceHarness(floor: .open) { $0.renderBudget = 0.5 }
        let ana = try h.presenter("Ana")
        _ = try ana.requestFloor()
        let path = try Self.deck(pages: 4, bombs: [3], in: h.dir)
        let deck = try ana.upload(path: path)
        try ana.present(deck.content, page: 1)
        h.service.stage.compositor.waitForPrerender()   // page 2: not the bomb's neighbour
        let page1 = try PNG.decode(ana.screenshot())

        let start = MonotonicClock.now()
        let e = serverError { try ana.control(.goto(page: 3)) }
        let took = MonotonicClock.now() - start
        XCTAssertEqual(e?.code, .unreadableContent)
        XCTAssertTrue(e?.message.contains("Page 3 takes longer than 0.5 s to draw") ?? false, e?.message ?? "no error")
        // The wall's worker had drawn page 1: the page is tried once more on a fresh worker
        // (WorkerUpkeep), so two budgets and a worker's start, not when the render ends.
        XCTAssertLessThan(took, 3, "answered past two budgets (0.5 s each), not when the render ends")
        XCTAssertEqual(h.service.workers?.wall.retries, 1, "tried once more on a fresh worker")
        XCTAssertEqual(PixelCompare.differingPixels(try PNG.decode(ana.screenshot()), page1), 0, "the previous frame stays")
        XCTAssertEqual(try ana.state().screen.page, 1)

        // Asked again: refused at once, not drawn again.
        let again = MonotonicClock.now()
        XCTAssertEqual(serverError { try ana.control(.goto(page: 3)) }?.code, .unreadableContent)
        XCTAssertLessThan(MonotonicClock.now() - again, 0.5)

        // The deck's other pages still show: page 4 from the document opened afresh (the
        // bomb's render holds the first one), its neighbour 3 not prerendered.
        try ana.control(.goto(page: 4))
        XCTAssertEqual(
            PixelCompare.differingPixels(try PNG.decode(ana.screenshot()), try h.expectedFrame(pdf: path, page: 4)), 0)
        try eventually("the bomb's render ended", timeout: 120) { !rendering(h) }
    }

    /// A deck whose page 2 is a bomb: showing page 1 prerenders page 2 within the budget
    /// only; from then on page 2 is known slow and never prerendered again.
    func testAnExpensiveNeighbourIsPrerenderedOnlyWithinTheBudget() throws {
        let h = try ServiceHarness(floor: .open) { $0.renderBudget = 0.5 }
        let ana = try h.presenter("Ana")
        _ = try ana.requestFloor()
        let deck = try ana.upload(path: Self.deck(pages: 3, bombs: [2], in: h.dir))
        try ana.present(deck.content, page: 1)
        let compositor = h.service.stage.compositor
        try eventually("page 2's prerender gave up", timeout: 10) { compositor.isSlow(content: deck.content.hex, page: 2) }
        compositor.waitForPrerender()
        let attempts = compositor.renderAttempts
        try ana.control(.goto(page: 3))   // renders 3, prerenders its neighbours: 2 is skipped
        compositor.waitForPrerender()
        XCTAssertEqual(compositor.renderAttempts, attempts + 1, "only page 3 was rendered: page 2 is known slow")
        XCTAssertEqual(serverError { try ana.control(.prev) }?.code, .unreadableContent)
        try eventually("the bomb's render ended", timeout: 120) { !rendering(h) }
    }
}

/// Whether a render is running now (one the budget gave up on, or one in progress).
private func rendering(_ h: ServiceHarness) -> Bool { h.service.stage.compositor.activeRenders > 0 }

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() { lock.lock(); n += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return n }
}
