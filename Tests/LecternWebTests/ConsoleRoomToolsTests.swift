import Foundation
import LecternClient
import LecternModel
import LecternProtocol
@testable import LecternService
import LecternTestSupport
import XCTest

/// The presenter console and the room's tools together on a phone (issue 27, Why 7): one
/// scroll, the console first, ink and polls one tap away; the next-slide picture comes back
/// after the last slide; the "Presenter console" button covers no other control.
final class ConsoleRoomToolsTests: XCTestCase {
    /// Whether `css` is inside the viewport, above the phone's bottom page-turn bar.
    func inView(_ b: WebSession, _ css: String) throws -> Bool {
        try b.execute(
            """
            const el = document.querySelector(arguments[0]);
            if (!el) return false;
            const r = el.getBoundingClientRect(), nav = document.querySelector('.stage .nav').getBoundingClientRect();
            const bottom = getComputedStyle(document.querySelector('.stage .nav')).position === 'fixed' ? nav.top : window.innerHeight;
            return r.height > 0 && r.top >= 0 && r.top < bottom;
            """, [css]) as? Bool == true
    }

    func testTheConsoleAndTheRoomsToolsAreOneScrollOnAPhone() throws {
        let h = try ServiceHarness.web(floor: .open)
        let pdf = try Fixtures.beamerNotesDeck(labels: ["1", "2", "3", "4"], in: h.dir, name: "talk.pdf")
        let phone = try h.browser(width: 390, height: 844)
        try h.joinAndWait(phone, name: "Ana's phone")
        try phone.click("#floor-request")
        try phone.type(try XCTUnwrap(phone.find("#file-input")), pdf)
        try phone.click("#file-list button[data-action=present]", timeout: 30)
        try phone.poll("the console") { try phone.execute("const c = document.getElementById('console-view'); return !!c && !c.hidden") as? Bool == true }

        // The room view is still there, below the console: not behind a "Room view" switch.
        XCTAssertTrue(try phone.displayed(XCTUnwrap(phone.find("#room-view"))), "the room's tools are hidden while the console is on")
        let below =
            try phone.execute(
                "return document.getElementById('console-view').getBoundingClientRect().bottom <= document.getElementById('room-view').getBoundingClientRect().top + 1")
            as? Bool
        XCTAssertEqual(below, true, "the console first, the room's tools below it")

        // Ink: one tap to the picture and its ink bar, then the pen.
        try phone.click("#con-jump-ink")
        try phone.poll("the ink bar in view") { try self.inView(phone, "#ink-bar") }
        try phone.click("#ink-bar [data-ink-tool=pen]")
        XCTAssertEqual(try phone.execute("return document.querySelector('#ink-bar [data-ink-tool=pen]').getAttribute('aria-pressed')") as? String, "true")
        try shoot(phone, "console-ink", width: 390, height: 844)

        // Polls and questions: one tap from the console (scrolled back to the top first).
        try phone.execute("window.scrollTo(0, 0)")
        try phone.poll("the audience card") { try phone.displayed(XCTUnwrap(phone.find("#audience-card"))) }
        try phone.poll("the polls button") { try phone.displayed(XCTUnwrap(phone.find("#con-jump-polls"))) }
        try phone.click("#con-jump-polls")
        try phone.poll("the audience card in view") { try self.inView(phone, "#audience-card") }
        try phone.execute("window.scrollTo(0, 0)")

        // The next slide after visiting the last one: the picture comes back.
        let nextShown = "const i = document.getElementById('con-next-img'); return !!i.getAttribute('src') && i.complete && i.naturalWidth > 0"
        try phone.type(try XCTUnwrap(phone.find("#con-goto-label")), "3")
        try phone.click("#con-goto button")
        try phone.poll("slide 3") { try h.snapshot().screen.page == 3 }
        try phone.poll("the next slide picture, page 4") {
            try phone.text("#con-next-cap") == "Next · page 4" && phone.execute(nextShown) as? Bool == true
        }
        try phone.click("#con-next")
        try phone.poll("the last slide") { try h.snapshot().screen.page == 4 }
        try phone.poll("the end of the deck") { try phone.text("#con-next-cap") == "End of the deck" }
        try phone.click("#con-prev")
        try phone.poll("back on 3") { try h.snapshot().screen.page == 3 }
        try phone.poll("the next-slide picture again, page 4") {
            try phone.text("#con-next-cap") == "Next · page 4" && phone.execute(nextShown) as? Bool == true
        }

        // Hide the console: the button that brings it back sits in the page, over nothing.
        try phone.click("#con-room")
        try phone.poll("the console hidden") { try phone.execute("return document.getElementById('console-view').hidden") as? Bool == true }
        try phone.poll("the way back") { try phone.displayed(XCTUnwrap(phone.find("#con-reopen"))) }
        let covered =
            try phone.execute(
                """
                const reopen = document.getElementById('con-reopen');
                const out = [];
                const pinned = (el) => {
                  for (let e = el; e; e = e.parentElement) if (['fixed', 'sticky'].includes(getComputedStyle(e).position)) return true;
                  return false;
                };
                if (getComputedStyle(reopen).position === 'fixed') out.push('it floats (position: fixed)');
                // Wherever the page is scrolled, it must not lie on another control.
                for (const y of [0, 400, 800, 1200, 1600, 2000, 2400, 3200]) {
                  window.scrollTo(0, y);
                  const r = reopen.getBoundingClientRect();
                  for (const b of document.querySelectorAll('button, input, select, textarea')) {
                    // (Bars pinned to the top or bottom, the header and the page-turn bar, lie
                    // over whatever scrolls under them: not what this checks.)
                    if (b === reopen || b.closest('#console-view') || pinned(b) || !b.offsetParent) continue;
                    const o = b.getBoundingClientRect();
                    if (r.left < o.right && o.left < r.right && r.top < o.bottom && o.top < r.bottom) out.push((b.id || b.textContent.trim()) + ' at ' + y);
                  }
                }
                window.scrollTo(0, 0);
                return [...new Set(out)];
                """) as? [String]
        XCTAssertEqual(covered, [], "the Presenter console button lies on other controls")
        try phone.click("#con-reopen")
        try phone.poll("the console again") { try phone.execute("return document.getElementById('console-view').hidden") as? Bool == false }
    }
}
