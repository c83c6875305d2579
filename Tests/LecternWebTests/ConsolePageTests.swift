import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// The presenter console in a real headless Chromium (docs/protocol.md §20): the floor
/// holder presenting a beamer deck with notes from a phone gets the slide on the wall and
/// the notes, next slide, counter and timer on the phone; everyone else keeps the room
/// view. Screenshots at phone (portrait and landscape) and laptop size.
final class ConsolePageTests: XCTestCase {
    func testTheFloorHolderGetsTheConsoleAndOthersKeepTheRoomView() throws {
        let h = try ServiceHarness.web(floor: .open)
        let pdf = try Fixtures.beamerNotesDeck(labels: ["1", "2", "2", "3", "4", "5", "6", "7"], in: h.dir, name: "talk.pdf")
        let phone = try h.browser(width: 390, height: 844)
        try h.joinAndWait(phone, name: "Ana's phone", role: .presenter)
        let watcher = try h.browser(width: 390, height: 844)
        try h.joinAndWait(watcher, name: "Ben", role: .presenter)

        // Ana takes the floor, uploads her deck and presents it from the phone.
        try phone.click("#floor-request")
        try phone.type(try XCTUnwrap(phone.find("#file-input")), pdf)
        try phone.click("#file-list button[data-action=present]", timeout: 30)
        try phone.poll("the console") { try phone.execute("const c = document.getElementById('console-view'); return !!c && !c.hidden") as? Bool == true }
        // The deck's pdfpc notes file, chosen after the deck: attached to it by its name.
        try #"{"pdfpcFormat": 2, "pages": [{"idx": 1, "label": "2", "overlay": 0, "note": "Explain the two steps, then the demo."}]}"#
            .write(toFile: h.dir + "/talk.pdfpc", atomically: true, encoding: .utf8)
        try phone.type(try XCTUnwrap(phone.find("#file-input")), h.dir + "/talk.pdfpc")
        let stored = try XCTUnwrap(h.snapshot().screen.content)
        let admin = try h.moderator()
        try phone.poll("the notes file attached") { (try? admin.notes(stored.id, page: 2).pages.first?.source) == "typed" }

        // The wall shows the slide half only.
        let wall = try h.connect()
        try wall.register(name: "wall-check", role: .moderator, passcode: ServiceHarness.moderatorPass)
        try phone.click("#con-next")
        try phone.poll("slide 2, step 1 of 2") { try phone.text("#con-counter").contains("Slide 2 of 7 · step 1 of 2") }
        try phone.poll("the notes") { try phone.text("#con-notes-text").contains("Explain the two steps") }
        try phone.poll("the notes half picture") {
            try phone.execute("const i = document.getElementById('con-notes-img'); return !i.hidden && i.naturalWidth > 0") as? Bool == true
        }
        try phone.poll("the next slide picture") {
            try phone.execute("return document.getElementById('con-next-img').naturalWidth > 0") as? Bool == true
        }
        // Notes typed on the phone are kept with the upload.
        try phone.click("#con-edit")
        let input = try phone.wait(for: "#con-notes-input")
        try phone.clear(input)
        try phone.type(input, "Typed on the phone ✓")
        try phone.click("#con-edit")
        // Typed notes are their author's (§20.2): the phone reads its own back from the
        // appliance; the moderator still reads the file's notes, not the phone's.
        try phone.poll("the edit kept") { try phone.text("#con-notes-text").contains("Typed on the phone ✓") }
        XCTAssertFalse((try admin.notes(stored.id, page: 2).pages.first?.text ?? "").contains("Typed on the phone"), "another device read the phone's typed note")
        try phone.poll("the edit shown") { try phone.text("#con-notes-text").contains("Typed on the phone") }
        // Zoom the notes.
        let before = try phone.execute("return parseFloat(getComputedStyle(document.getElementById('con-notes-text')).fontSize)") as? Double ?? 0
        try phone.click("#con-font-up")
        let after = try phone.execute("return parseFloat(getComputedStyle(document.getElementById('con-notes-text')).fontSize)") as? Double ?? 0
        XCTAssertGreaterThan(after, before)
        // Phone portrait: notes come first, above the slides.
        let order =
            try phone.execute(
                "return document.getElementById('con-notes-card').getBoundingClientRect().top < document.querySelector('.con-slides').getBoundingClientRect().top")
            as? Bool
        XCTAssertEqual(order, true, "notes first on a phone in portrait")
        // The timer, started from the phone, counts on the same on another device.
        try phone.click("#con-timer-toggle")
        try phone.poll("the timer runs") { try h.snapshot().console?.timer.running == true }
        try phone.poll("the phone's timer counts on between pushes") { try phone.text("#con-timer") != "0:00" }
        try assertNoHorizontalScroll(phone, "the console on a phone")
        try shoot(phone, "console", width: 390, height: 844)

        // Ben, not holding the floor, keeps the room view and never gets the console or notes.
        try watcher.poll("Ben sees page 2") { try watcher.text("#page-label").contains("2 / 8") }
        XCTAssertEqual(try watcher.execute("const c = document.getElementById('console-view'); return !!c && !c.hidden") as? Bool, false)
        XCTAssertFalse(try watcher.execute("return document.body.innerText") as? String ?? "" ~= "Typed on the phone")

        // The moderator keeps the room view, with the notes of the page on screen beside it.
        let chair = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(chair, name: "Chair", role: .moderator)
        // They are the deck's own (its pdfpc file's), not what the presenter typed (§20.2).
        try chair.poll("the moderator's notes") { try chair.text("#mod-notes-text").contains("Explain the two steps") }
        XCTAssertFalse(try chair.text("#mod-notes-text").contains("Typed on the phone"), "the moderator read the presenter's typed note")
        XCTAssertEqual(try chair.execute("const c = document.getElementById('console-view'); return !!c && !c.hidden") as? Bool, false)
        try shoot(chair, "console-moderator", width: 1366, height: 768)

        // The overview: thumbnails fetched as they scroll in; one tap jumps there.
        try phone.click("#con-overview-open")
        try phone.poll("thumbnails") {
            try phone.execute("return document.querySelectorAll('#con-grid img[data-loaded]').length") as? Int ?? 0 >= 4
        }
        try shoot(phone, "console-overview", width: 390, height: 844)
        try phone.click("#con-grid .con-thumb[data-page='5']")
        try phone.poll("page 5 on the wall") { try h.snapshot().screen.page == 5 }

        // Phone in landscape and a laptop.
        try phone.setViewport(width: 844, height: 390)
        try phone.settle()
        try assertNoHorizontalScroll(phone, "the console on a phone in landscape")
        try shoot(phone, "console-landscape", width: 844, height: 390)
        try phone.setViewport(width: 1366, height: 768)
        try phone.settle()
        try assertNoHorizontalScroll(phone, "the console on a laptop")
        try shoot(phone, "console", width: 1366, height: 768)

        // Goto by label from the console.
        try phone.type(try XCTUnwrap(phone.find("#con-goto-label")), "3")
        try phone.click("#con-goto button")
        try phone.poll("the slide labelled 3") { try h.snapshot().screen.page == 4 }
        _ = wall
    }
}

private func ~= (text: String, needle: String) -> Bool { text.contains(needle) }
