import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// The moderator's page in a real headless Chromium against a real service: the queue,
/// granting, withdrawing, rejecting, blanking, do-not-disturb and removing, as the
/// presenter's page sees them.
final class ModeratorPageTests: XCTestCase {
    /// Moderated room: the presenter asks, the moderator sees the queue and grants, the
    /// presenter's page says it has the floor. The presenter's page uses the JavaScript
    /// PBKDF2 (as a phone on plain http:// does).
    func testAModeratorPageGrantsTheFloorToAPresenterPage() throws {
        let h = try ServiceHarness.web(floor: .moderated)
        let mod = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(mod, name: "Chair", role: .moderator)
        XCTAssertTrue(try mod.displayed(XCTUnwrap(mod.find("#mod-card"))))

        let p = try h.browser(width: 360, height: 740, query: "?crypto=js")
        try h.joinAndWait(p, name: "Ben's phone")
        XCTAssertEqual(try p.text("#floor-request"), "Ask for the floor")
        try p.click("#floor-request")
        try p.poll("the queue position") { try p.text("#floor-status") == "You are number 1 in the queue." }

        let ben = try XCTUnwrap(h.device(named: "Ben's phone"))
        try mod.poll("Ben in the moderator's queue") { try mod.text("#queue-list").contains("Ben's phone") }
        try mod.poll("both in the list of people") {
            let t = try mod.text("#device-list")
            return t.contains("Chair (you)") && t.contains("Ben's phone") && t.contains("queued #1")
        }
        try shoot(mod, "moderator", width: 1366, height: 768)
        try mod.click("#queue-list button[data-action=grant][data-device='\(ben.id)']")
        try p.poll("the presenter's page to show the floor") { try p.text("#floor-status") == "You have the floor." }
        XCTAssertEqual(try h.snapshot().floor.holder, ben.id)
        try p.poll("the toast") { try p.execute("return document.getElementById('toast').textContent") as? String == "Chair gave you the floor." }
        try mod.poll("the queue to empty") { try mod.text("#queue-empty") == "Nobody is waiting." }
        try mod.poll("Ben holds the floor in the list") { try mod.text("#device-list").contains("has the floor") }

        try shoot(p, "presenter-floor", width: 360, height: 740)

        // Withdraw.
        try mod.click("#device-list button[data-action=withdraw][data-device='\(ben.id)']")
        try p.poll("the floor gone") { try p.text("#floor-status") == "Nobody has the floor." }
        XCTAssertNil(try h.snapshot().floor.holder)
        try p.poll("the toast") { try p.execute("return document.getElementById('toast').textContent") as? String == "Chair took the floor from you." }

        // Reject: Ben asks again, the moderator turns him down from the queue.
        try p.click("#floor-request")
        try mod.poll("Ben queued again") { try mod.text("#queue-list").contains("Ben's phone") }
        try mod.click("#queue-list button[data-action=reject][data-device='\(ben.id)']")
        try p.poll("the rejection in words") {
            try p.execute("return document.getElementById('toast').textContent") as? String == "Chair turned down your request for the floor."
        }
        XCTAssertEqual(try h.snapshot().floor.queue, [])
        try mod.poll("the queue to empty") { try mod.text("#queue-empty") == "Nobody is waiting." }

        // The moderator blanks the screen from the page, without the floor, and unblanks it.
        try mod.click("#blank-black")
        try mod.poll("blank black") { try h.snapshot().screen.blank == .black }
        XCTAssertTrue(h.service.stage.screenshot().isUniform(PixelRect(x: 0, y: 0, width: 1920, height: 1080), .black))
        try mod.poll("the button pressed") { try mod.execute("return document.getElementById('blank-black').getAttribute('aria-pressed')") as? String == "true" }
        try mod.click("#blank-black")
        try mod.poll("unblanked") { try h.snapshot().screen.blank == .none }

        // Do-not-disturb from the moderator's switch: the presenter sees it, and a request
        // is refused in words.
        try mod.click("label.switch")
        try mod.poll("dnd on") { try h.snapshot().floor.doNotDisturb }
        try p.poll("the presenter sees it") { try p.displayed(XCTUnwrap(p.find("#dnd-note"))) }
        try p.click("#floor-request")
        try p.poll("doNotDisturb") { try p.execute("return document.getElementById('toast').textContent") as? String == LecternError.doNotDisturb.message }
        try shoot(p, "presenter-dnd", width: 360, height: 740)

        // Remove (two taps: the first asks "Sure?"): the presenter's page says so, in words.
        try mod.click("#device-list button[data-action=kick][data-device='\(ben.id)']")
        try mod.poll("the confirmation") { try mod.text("#device-list button[data-action=kick][data-device='\(ben.id)']") == "Sure? Remove" }
        XCTAssertNotNil(try h.device(named: "Ben's phone"), "one tap removes nobody")
        try mod.click("#device-list button[data-action=kick][data-device='\(ben.id)']")
        try p.poll("the kicked message") { try p.text("#login-error") == LecternError.kicked.message }
        XCTAssertNil(try h.device(named: "Ben's phone"))
        XCTAssertTrue(try p.displayed(XCTUnwrap(p.find("#login-form"))))
    }
}
