import Foundation
import LecternModel
import LecternProtocol
@testable import LecternService
import LecternTestSupport
import XCTest

/// Joining again without typing (docs/protocol.md §28.3), in a real Chromium: a new tab of
/// the browser that joined comes in by itself, as a new device with the same name; the key
/// is forgotten when the meeting it was typed in is over (another `meeting` id in the
/// state), after 12 hours, and on Leave.
final class RememberedJoinTests: XCTestCase {
    func newTab(_ b: WebSession, _ url: String) throws {
        let handle = try XCTUnwrap((try b.call("POST", "/window/new", ["type": "tab"]) as? [String: Any])?["handle"] as? String)
        try b.call("POST", "/window", ["handle": handle])
        try b.open(url)
    }

    func phase(_ b: WebSession) throws -> String { try b.execute("return document.body.dataset.phase") as? String ?? "" }

    func remembered(_ b: WebSession) throws -> [String: Any]? {
        let text = try b.execute("return localStorage.getItem('lectern.remembered')") as? String
        return text.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    func testANewTabJoinsAgainUntilTheMeetingChanges() throws {
        let h = try ServiceHarness.web(floor: .moderated)
        let b = try h.browser(width: 390, height: 844)
        try h.joinAndWait(b, name: "Ana's phone")
        let kept = try XCTUnwrap(try remembered(b), "the key kept for the meeting")
        XCTAssertNil(kept["passcode"], "never the passcode itself")
        XCTAssertFalse((try b.execute("return localStorage.getItem('lectern.remembered')") as? String ?? "").contains(ServiceHarness.presenterPass))
        // The meeting the key belongs to: the state's `meeting` id (§27).
        let meeting = try XCTUnwrap(try h.snapshot().meeting)
        try b.poll("the meeting kept with the key") { try remembered(b)?["meeting"] as? String == meeting }

        // A new tab: in without typing, a second device of the same name.
        try newTab(b, h.url)
        _ = try b.wait(for: "#room-view", timeout: 30)
        try b.poll("in") { try phase(b) == "in" }
        try b.poll("two devices named Ana's phone") { try h.snapshot().devices.filter { $0.name == "Ana's phone" }.count == 2 }

        // The same tab sees another meeting: it leaves and asks for the passcode.
        try b.poll("the state") { try b.execute("return !!window.Lectern.app.state") as? Bool == true }
        try b.poll("back to the form") {
            try b.execute("if (window.Lectern.app.state) window.Lectern.app.state.meeting = 'another-meeting'")
            return try phase(b) == "login"
        }
        XCTAssertEqual(try b.text("#login-error"), "A new meeting has started: type the passcode to join it.")
        XCTAssertNil(try remembered(b), "the key forgotten")
        try b.poll("that tab's device gone") { try h.snapshot().devices.filter { $0.name == "Ana's phone" }.count == 1 }
        XCTAssertEqual(try b.execute("return document.getElementById('name').value") as? String, "Ana's phone", "the name stays")

        // Another tab now: the form, the name filled in, the passcode field waiting.
        try newTab(b, h.url)
        try b.poll("the form") { try phase(b) == "login" }
        try b.poll("the passcode field focused") { try b.execute("return document.activeElement && document.activeElement.id") as? String == "passcode" }
    }

    func testTheKeyLastsTwelveHoursAndLeaveForgetsIt() throws {
        let h = try ServiceHarness.web(floor: .open)
        let b = try h.browser(width: 390, height: 844)
        try h.joinAndWait(b, name: "Bo")
        XCTAssertNotNil(try remembered(b))
        // Kept 12 hours ago: too old.
        try b.execute(
            "const j = JSON.parse(localStorage.getItem('lectern.remembered')); j.savedAt = Date.now() - 12 * 3600 * 1000 - 1000; localStorage.setItem('lectern.remembered', JSON.stringify(j));"
        )
        try newTab(b, h.url)
        try b.poll("the form") { try phase(b) == "login" }
        XCTAssertNil(try remembered(b))
        try h.joinAndWait(b, name: "Bo")
        XCTAssertNotNil(try remembered(b))
        try b.click("#leave")
        try b.poll("the form") { try phase(b) == "login" }
        XCTAssertNil(try remembered(b), "Leave forgets this browser's key")
        try newTab(b, h.url)
        try b.poll("the form") { try phase(b) == "login" }
    }
}
