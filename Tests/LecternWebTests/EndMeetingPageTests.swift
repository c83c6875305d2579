import Foundation
import LecternClient
import LecternModel
import LecternProtocol
@testable import LecternService
import LecternTestSupport
import XCTest

/// End meeting from the moderator's page in a real Chromium (docs/protocol.md §27): a
/// confirmation saying what goes, then the presenter's and the viewer's pages go back to
/// their start screens, told why, and the room keeps nothing of the meeting.
final class EndMeetingPageTests: XCTestCase {
    func testTheModeratorEndsTheMeetingAndThePresenterAndViewerPagesGoBackToTheStart() throws {
        let h = try ServiceHarness.web(floor: .open)
        guard let driver = h.driver else { return XCTFail("no browsers") }
        // Ana presents from her phone.
        let ana = try h.browser(width: 390, height: 844)
        try h.joinAndWait(ana, name: "Ana's phone")
        try ana.click("#floor-request")
        let pdf = try Fixtures.numberedDeck(count: 3, in: Fixtures.tempDir("end-meeting-web"))
        try ana.type(try XCTUnwrap(ana.find("#file-input")), pdf)
        try ana.click("#file-list button[data-action=present]", timeout: 30)
        try h.assertOutputShows(pdf: pdf, page: 1)

        // A viewer follows on hers.
        let viewer = try driver.session(width: 390, height: 844)
        try viewer.open(h.url)
        try viewer.click("#audience-link")
        try viewer.type(try viewer.wait(for: "#v-passcode"), ServiceHarness.presenterPass)
        try viewer.click("#v-join")
        _ = try viewer.wait(for: "#audience-view:not([hidden])", timeout: 30)

        // A poll, so that there is something of the meeting to clear.
        let side = try h.moderator("Side")
        _ = try side.request(.pollAsk(PollDraft(question: "Lunch?", kind: .yesno)))
        side.close()

        // The moderator, on a laptop: End meeting… asks first, saying what goes.
        let mod = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(mod, name: "Chair", role: .moderator)
        let meeting1 = try h.snapshot().meeting
        let button = try mod.wait(for: "#end-meeting")
        XCTAssertTrue(try mod.displayed(button))
        try mod.click("#end-meeting")
        _ = try mod.wait(for: "#confirm-dialog[open]")
        let question = try mod.text("#confirm-text")
        XCTAssertTrue(question.hasPrefix("End the meeting?"), question)
        for part in ["polls", "meeting record", "typed speaker notes", "uploads"] {
            XCTAssertTrue(question.contains(part), "the confirmation names \(part): \(question)")
        }
        try shoot(mod, "end-meeting-confirm", width: 1366, height: 768)
        // Cancel changes nothing.
        try mod.click("#confirm-no")
        try mod.poll("the dialog closed") { try mod.execute("return document.getElementById('confirm-dialog').open") as? Bool == false }
        XCTAssertNotNil(try h.snapshot().audience?.poll)
        try mod.click("#end-meeting")
        _ = try mod.wait(for: "#confirm-dialog[open]")
        try mod.click("#confirm-yes")

        // Every page goes back to its start screen, saying why; nobody is in the room.
        let why = LecternError.meetingEnded.message
        for (page, name) in [(ana, "the presenter's"), (mod, "the moderator's")] {
            try page.poll("\(name) page back at the start") {
                try page.execute("return document.body.dataset.phase") as? String == "gone"
                    && page.displayed(XCTUnwrap(page.find("#login-view")))
            }
            XCTAssertEqual(try page.text("#login-error"), why, name)
        }
        try viewer.poll("the viewer's page back at the join form") {
            try viewer.displayed(XCTUnwrap(viewer.find("#join-view"))) && !(viewer.displayed(XCTUnwrap(viewer.find("#audience-view"))))
        }
        XCTAssertEqual(try viewer.text("#join-error"), why)
        try shoot(ana, "end-meeting-presenter", width: 390, height: 844)
        try shoot(viewer, "end-meeting-viewer", width: 390, height: 844)
        let s = try h.snapshot()
        XCTAssertEqual(s.devices, [])
        XCTAssertNil(s.screen.content)
        XCTAssertNil(s.audience?.poll)
        XCTAssertNotEqual(s.meeting, meeting1)
        // A reload doesn't resume the ended meeting's session: the join form again.
        try ana.open(h.url)
        _ = try ana.wait(for: "#login-form")
        try ana.poll("no resume") { try ana.displayed(XCTUnwrap(ana.find("#login-view"))) }
        XCTAssertEqual(try h.snapshot().devices, [])
    }

    /// The /wall view declares itself a display (wall-view): it stays through the end of
    /// the meeting and shows the idle wall.
    func testTheWallViewStaysThroughTheEndAndShowsTheIdleWall() throws {
        let h = try ServiceHarness.web(floor: .open)
        guard let driver = h.driver else { return XCTFail("no browsers") }
        let wall = try driver.session(width: 1366, height: 768)
        try wall.open(h.url + "wall")
        try wall.type(try wall.wait(for: "#wall-passcode"), ServiceHarness.moderatorPass)
        try wall.click("#wall-join")
        try wall.poll("the wall view registered") { try h.device(named: "Wall view") != nil }
        let a = try h.presenter("Ana")
        _ = try a.requestFloor()
        let pdf = try Fixtures.numberedDeck(count: 2, in: Fixtures.tempDir("end-meeting-wall"))
        try a.present(try a.upload(path: pdf).content)
        try wall.poll("the wall shows the deck") { try wall.execute("return Number(document.getElementById('wall-img').dataset.frames || 0)") as? Int ?? 0 >= 2 }
        let m = try h.moderator()
        _ = try m.request(.audienceSet(.endMeeting))
        try wall.poll("the wall view still in the room, the others gone") { try h.snapshot().devices.map(\.name) == ["Wall view"] }
        // The idle wall is committed once the display loop has presented it (§10).
        try wall.poll("the wall idle") { try h.snapshot().screen.content == nil }
        XCTAssertTrue(try wall.displayed(XCTUnwrap(wall.find("#wall-img"))), "the wall view shows the idle wall, not its login")
    }
}
