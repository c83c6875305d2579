import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// Clear and blank never wait behind a screen change (a page that may still be rendering):
/// the changes before them are dropped and answered, and they are shown at once.
final class RoomCoreOvertakeTests: XCTestCase {
    typealias H = RoomCoreHarness

    /// Ana holds the floor (open room), owns deck 1 (5 pages) and shows its page 1.
    func showingPage1() -> (H, DeviceID) {
        let h = H(floor: .open, catalog: [deck(1)])
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        h.own(cid(1), from: 1, device: ana)
        h.shown(h.send(.present(content: cid(1), page: 1), from: 1, device: ana))
        return (h, ana)
    }

    func testClearOvertakesAPageStillBeingShownAndThoseWaiting() {
        let (h, ana) = showingPage1()
        let slow = h.send(.present(content: cid(1), page: 3), from: 1, tag: 30, device: ana)
        let waiting = h.send(.control(.next), from: 1, tag: 31, device: ana)
        XCTAssertEqual(H.shows(slow), [page(1, 3)])
        XCTAssertTrue(H.work(waiting).isEmpty, "queued behind the page")
        let clear = h.send(.clear, from: 1, tag: 32, device: ana)
        XCTAssertEqual(H.shows(clear), [.idle], "shown at once, not after the page")
        let answered = H.messages(to: 1, clear).compactMap { m -> ErrorCode? in
            if case .error(let e) = m { return e.code }
            if case .controlFailed(let e) = m { return e.code }
            return nil
        }
        XCTAssertEqual(answered, [.nothingOnScreen, .nothingOnScreen], "the page and the next are answered: not shown")
        // The page's report, when its render ends, changes nothing.
        let late = h.handle(.shown(op: showOp(slow), error: nil))
        XCTAssertTrue(H.work(late).isEmpty)
        XCTAssertTrue(H.replies(to: 1, late).isEmpty)
        XCTAssertEqual(H.replies(to: 1, h.shown(clear)), [.ok])
        XCTAssertEqual(h.core.snapshot(now: h.now).screen.page, 0, "idle")
    }

    func testBlankOvertakesAndBlanksTheCommittedPage() {
        let (h, ana) = showingPage1()
        let slow = h.send(.control(.goto(page: 4)), from: 1, tag: 30, device: ana)
        XCTAssertEqual(H.shows(slow), [page(1, 4)])
        let blank = h.send(.control(.blank(white: false)), from: 1, tag: 31, device: ana)
        XCTAssertEqual(H.errorCode(to: 1, blank), .nothingOnScreen, "the goto is answered: not shown")
        XCTAssertEqual(H.shows(blank), [.blank(.black)], "blank runs at once")
        h.shown(blank)
        XCTAssertEqual(h.core.snapshot(now: h.now).screen.page, 1, "blanked over page 1: the goto never happened")
    }

    /// The overtaken page may have reached the output just before: a clear to the screen
    /// already committed is still shown.
    func testAfterAnOvertakeTheNextChangeIsShownEvenWhenItLooksLikeNoChange() {
        let h = H(floor: .open, catalog: [deck(1)])
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        h.own(cid(1), from: 1, device: ana)
        let present = h.send(.present(content: cid(1), page: 2), from: 1, device: ana)
        XCTAssertEqual(H.shows(present), [page(1, 2)])
        let clear = h.send(.clear, from: 1, device: ana)
        XCTAssertEqual(H.shows(clear), [.idle], "idle is committed, but the page may be on the output")
        h.shown(clear)
        let again = h.send(.clear, from: 1, device: ana)
        XCTAssertTrue(H.work(again).isEmpty, "once shown, the output is known again")
        XCTAssertEqual(H.replies(to: 1, again), [.ok])
    }

    func testNextAndPresentStillWaitTheirTurn() {
        let (h, ana) = showingPage1()
        let first = h.send(.control(.next), from: 1, device: ana)
        let second = h.send(.present(content: cid(1), page: 5), from: 1, device: ana)
        XCTAssertEqual(H.shows(first), [page(1, 2)])
        XCTAssertTrue(H.work(second).isEmpty)
        XCTAssertTrue(H.replies(to: 1, second).isEmpty)
    }

    private func showOp(_ effects: [RoomEffect]) -> Int {
        effects.compactMap { if case .showWall(let op, _) = $0 { return op } else { return nil } }.first ?? -1
    }
}
