import Foundation
import LecternClient
import LecternModel
import LecternProtocol
@testable import LecternService
import LecternTestSupport
import XCTest

/// Going live from a phone: Present takes the floor in one tap in an open room, asks for it
/// (and presents when granted) in a moderated one; the presenter-first layout puts Upload,
/// the picture and the page turns where a thumb finds them, upright and on its side.
final class GoLiveTests: XCTestCase {
    /// Whether the element is wholly inside the window (not scrolled away, not cut).
    func inView(_ b: WebSession, _ css: String) throws -> Bool {
        try b.execute(
            """
            const e = document.querySelector(arguments[0]); if (!e) return false;
            const r = e.getBoundingClientRect();
            return r.width > 0 && r.height > 0 && r.top >= -0.5 && r.left >= -0.5 && r.bottom <= window.innerHeight + 0.5 && r.right <= window.innerWidth + 0.5;
            """, [css]) as? Bool == true
    }

    /// Clicks the first match, again if the list was redrawn under the click (a state push).
    func tap(_ b: WebSession, _ css: String) throws {
        try b.poll("\(css) clicked") {
            do {
                try b.click(css, timeout: 30)
                return true
            } catch let e as WebDriverError where e.description.contains("stale element") { return false }
        }
    }

    func testOpenRoomPresentFromAFreshPhoneIsOneTap() throws {
        let h = try ServiceHarness.web(floor: .open)
        let pdf = try Fixtures.numberedDeck(count: 4, in: h.dir, name: "plan.pdf")
        // Someone else is live: a one-tap Present takes the wall from them, after a confirmation.
        let other = try h.presenter("Finn")
        _ = try other.requestFloor()
        let b = try h.browser(width: 390, height: 844)
        try h.joinAndWait(b, name: "Ana's phone")
        // A newcomer sees Upload first, without scrolling.
        XCTAssertTrue(try inView(b, ".upload"), "Upload is in view for a newcomer")
        XCTAssertFalse(try b.displayed(XCTUnwrap(b.find("#live-badge"))))
        try shoot(b, "newcomer", width: 390, height: 844)
        try b.type(try XCTUnwrap(b.find("#file-input")), pdf)
        try tap(b, "#file-list button[data-action=present]")
        // Finn is live: the page asks first.
        _ = try b.wait(for: "#confirm-dialog")
        XCTAssertEqual(try b.text("#confirm-text"), "Take the floor from Finn and show plan.pdf?")
        try shoot(b, "confirm-takeover", width: 390, height: 844)
        try b.click("#confirm-yes")
        try h.assertOutputShows(pdf: pdf, page: 1)
        let ana = try XCTUnwrap(h.device(named: "Ana's phone")).id
        XCTAssertEqual(try h.snapshot().floor.holder, ana)
        try b.poll("LIVE") { try b.displayed(XCTUnwrap(b.find("#live-badge"))) }
        // The picture and the bottom bar (◀ page ▶) in view after Present.
        try b.poll("the page in the bar") { try b.text("#nav-page") == "1 / 4" }
        XCTAssertTrue(try inView(b, "#preview"), "the picture is in view after Present")
        XCTAssertTrue(try inView(b, "#next"), "Next is in view")
        XCTAssertTrue(try inView(b, "#prev"), "Previous is in view")
        try b.execute("document.activeElement && document.activeElement.blur()")
        try b.call("POST", "/element/\(try XCTUnwrap(b.find("#next")).id)/click")
        try h.assertOutputShows(pdf: pdf, page: 2)
        try b.poll("page 2 in the bar") { try b.text("#nav-page") == "2 / 4" }
        try assertNoHorizontalScroll(b, "the presenter's phone")
        try shoot(b, "presenter-live", width: 390, height: 844)

        // On its side: the picture and the page turns both in view.
        try b.setViewport(width: 844, height: 390)
        try b.poll("landscape: picture and Next in view, the picture above the bar") {
            try inView(b, "#preview-img") && inView(b, "#next") && inView(b, "#prev")
                && b.execute(
                    "return document.getElementById('preview-img').getBoundingClientRect().bottom <= document.querySelector('.stage .nav').getBoundingClientRect().top + 0.5"
                ) as? Bool == true
        }
        try shoot(b, "presenter-landscape", width: 844, height: 390)
        try b.setViewport(width: 390, height: 844)

        // Present again after a clip or someone else: back on the page it was on.
        _ = try other.requestFloor()
        try b.poll("Finn took it back") { try h.snapshot().floor.holder == other.deviceID }
        try tap(b, "#file-list button[data-action=present]")
        try b.click("#confirm-yes")
        try h.assertOutputShows(pdf: pdf, page: 2)
    }

    func testModeratedRoomPresentAsksThenPresentsWhenGranted() throws {
        let h = try ServiceHarness.web(floor: .moderated)
        let pdf = try Fixtures.numberedDeck(count: 3, in: h.dir, name: "plan.pdf")
        let mod = try h.moderator()   // with no moderator in the room, a request is granted at once
        let b = try h.browser(width: 390, height: 844)
        try h.joinAndWait(b, name: "Ana's phone")
        try b.type(try XCTUnwrap(b.find("#file-input")), pdf)
        try tap(b, "#file-list button[data-action=present]")
        let ana = try XCTUnwrap(h.device(named: "Ana's phone")).id
        try b.poll("queued (toast: \((try? b.text("#toast")) ?? ""))") { try h.snapshot().floor.queue == [ana] }
        try b.poll("the toast says what happens") {
            try b.text("#toast").contains("plan.pdf goes on the screen as soon as you get it")
        }
        XCTAssertNil(try h.snapshot().screen.content, "nothing on the wall before the grant")
        try mod.moderate(.grant, target: ana)
        try h.assertOutputShows(pdf: pdf, page: 1)
        try b.poll("LIVE") { try b.displayed(XCTUnwrap(b.find("#live-badge"))) }
    }
}
