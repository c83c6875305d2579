import Foundation
import LecternClient
import LecternModel
import LecternProtocol
@testable import LecternService
import LecternTestSupport
import XCTest

/// axe-core (the PyPI package axe-selenium-python carries its axe.min.js; board/install-deps
/// installs it from board/python-packages.txt) on the login, presenter, moderator and clip
/// screens: no serious or critical violations. And text at 200 %: no control cut off or
/// pushed off-screen (WCAG 1.4.4).
final class AccessibilityTests: XCTestCase {
    static func axeSource() throws -> String {
        let r = try Fixtures.run(
            "/usr/bin/env", ["python3", "-c", "import axe_selenium_python, os; print(os.path.dirname(axe_selenium_python.__file__))"])
        let dir = String(decoding: r.out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let path = dir + "/node_modules/axe-core/axe.min.js"
        guard r.status == 0, let js = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw WebDriverError("axe-core is missing (\(r.err.prefix(200))): run board/install-deps, which installs board/python-packages.txt from PyPI")
        }
        return js
    }

    /// The serious and critical violations axe finds on the page as it is now.
    func axe(_ b: WebSession, _ source: String) throws -> [String] {
        try b.execute(source + "\n;window.__axe = axe; return true;")
        let v =
            try b.executeAsync(
                """
                const done = arguments[arguments.length - 1];
                window.__axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } })
                  .then((r) => done(r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
                    .map((v) => v.id + ' (' + v.impact + '): ' + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', '))),
                    (e) => done(['axe failed: ' + e]));
                """) as? [String] ?? ["no answer from axe"]
        return v
    }

    /// Controls cut off or outside the window's width, with the text at 200 %.
    func clipped(_ b: WebSession) throws -> [String] {
        try b.execute("document.documentElement.style.fontSize = '200%'")
        try b.settle()
        let v =
            try b.execute(
                """
                const w = document.documentElement.clientWidth;
                return Array.from(document.querySelectorAll('button, input, select, label.upload span, #page-label, #nav-page'))
                  .filter((e) => e.offsetParent !== null && getComputedStyle(e).visibility !== 'hidden' && e.type !== 'file')
                  .filter((e) => { const r = e.getBoundingClientRect();
                    return r.left < -0.5 || r.right > w + 0.5 || e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflow !== 'visible'; })
                  .map((e) => (e.id || e.textContent.trim().slice(0, 20)) + ' [' + Math.round(e.getBoundingClientRect().left) + '..' + Math.round(e.getBoundingClientRect().right) + ' of ' + w + ']');
                """) as? [String] ?? ["?"]
        try b.execute("document.documentElement.style.fontSize = ''")
        return v
    }

    func testAxeFindsNothingSeriousAndTextAt200PercentFits() throws {
        let source = try Self.axeSource()
        let h = try ServiceHarness.web(floor: .moderated)
        let pdf = try Fixtures.numberedDeck(count: 3, in: h.dir, name: "plan.pdf")
        let clip = try Fixtures.clip(in: h.dir, color: "blue", seconds: 30, name: "intro.mp4")

        let phone = try h.browser(width: 390, height: 844)
        // axe works here: an image without a text alternative is a critical violation.
        try phone.execute("const i = document.createElement('img'); i.id = 'no-alt'; i.src = 'data:,'; i.width = 10; i.height = 10; document.body.append(i)")
        XCTAssertTrue(try axe(phone, source).contains { $0.hasPrefix("image-alt") }, "axe finds a missing alt")
        try phone.execute("document.getElementById('no-alt').remove()")
        XCTAssertEqual(try axe(phone, source), [], "the login screen")
        XCTAssertEqual(try clipped(phone), [], "the login screen at 200 %")

        // The moderator (a laptop) presents, someone waits.
        let mod = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(mod, name: "Mo", role: .moderator)
        try mod.type(try XCTUnwrap(mod.find("#file-input")), pdf)
        try mod.click("#file-list button[data-action=present]", timeout: 30)
        try h.assertOutputShows(pdf: pdf, page: 1)
        let waiting = try h.presenter("Finn")
        _ = try waiting.requestFloor()
        try mod.poll("the queue") { try mod.text("#queue-list").contains("Finn") }
        XCTAssertEqual(try axe(mod, source), [], "the moderator's screen")
        XCTAssertEqual(try clipped(mod), [], "the moderator's screen at 200 %")

        // The presenter on a phone, with the floor and a clip playing.
        try h.joinAndWait(phone, name: "Ana's phone")
        try mod.poll("Ana in the list") { try mod.text("#device-list").contains("Ana's phone") }
        let ana = try XCTUnwrap(h.device(named: "Ana's phone")).id
        try h.moderator("Mo2").moderate(.grant, target: ana)
        try phone.poll("the floor") { try phone.text("#floor-status") == "You have the floor." }
        try phone.type(try XCTUnwrap(phone.find("#file-input")), pdf)
        try phone.click("#file-list button[data-action=present]", timeout: 30)
        try h.assertOutputShows(pdf: pdf, page: 1)
        try phone.poll("the page label") { try phone.text("#page-label") == "1 / 3" }
        XCTAssertEqual(try axe(phone, source), [], "the presenter's screen")
        XCTAssertEqual(try clipped(phone), [], "the presenter's screen at 200 %")
        try shoot(phone, "presenter-a11y", width: 390, height: 844)
        // The page number is announced (a polite live region); no two buttons share a name.
        XCTAssertEqual(
            try phone.execute("const l = document.getElementById('page-label'); return [l.getAttribute('role'), l.getAttribute('aria-live')]") as? [String], ["status", "polite"])
        let dup =
            try phone.execute(
                """
                const names = Array.from(document.querySelectorAll('button')).filter((b) => b.offsetParent !== null)
                  .map((b) => (b.getAttribute('aria-label') || b.textContent).trim());
                return names.filter((n, i) => n && names.indexOf(n) !== i);
                """) as? [String] ?? ["?"]
        XCTAssertEqual(dup, [], "buttons with the same name")
        // Space after clicking Previous is still "next".
        try phone.click("#next")
        try h.assertOutputShows(pdf: pdf, page: 2)
        try phone.click("#prev")
        try h.assertOutputShows(pdf: pdf, page: 1)
        try phone.press([" "])
        try h.assertOutputShows(pdf: pdf, page: 2)
        // A toast sits in a landmark, above the bottom bar, and can be dismissed.
        try phone.execute("document.getElementById('goto-page').value = '99'")
        try phone.click("#goto-form button")
        _ = try phone.wait(for: "#toast .toast-close")
        XCTAssertEqual(try phone.execute("return !!document.getElementById('toast').closest('aside[aria-label]')") as? Bool, true)
        XCTAssertEqual(
            try phone.execute("return document.getElementById('toast').getBoundingClientRect().bottom <= document.getElementById('next').getBoundingClientRect().top") as? Bool,
            true,
            "the toast covers the page turns")
        try phone.click("#toast .toast-close")
        try phone.poll("the toast dismissed") { try phone.execute("return document.getElementById('toast').classList.contains('show')") as? Bool == false }
        try phone.type(try XCTUnwrap(phone.find("#file-input")), clip)
        try phone.click("#file-list button[data-action=play]", timeout: 30)
        try phone.poll("the clip playing") { try h.snapshot().screen.clip?.state == .playing }
        try phone.poll("the clip card") { try phone.text("#clip-state") == "Playing" }
        XCTAssertEqual(try axe(phone, source), [], "the clip screen")
        XCTAssertEqual(try clipped(phone), [], "the clip screen at 200 %")
        try shoot(phone, "clip-playing", width: 390, height: 844)
        try phone.execute("document.documentElement.style.fontSize = '200%'")
        try shoot(phone, "presenter-text-200", width: 390, height: 844)
    }
}
