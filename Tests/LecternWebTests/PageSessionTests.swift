import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// Joining and staying in the room from a real headless Chromium: refusals in the
/// service's words, and a reload that resumes the session.
final class PageSessionTests: XCTestCase {
    /// A wrong passcode, and other refusals, in the service's words.
    func testAWrongPasscodeShowsItsMessage() throws {
        let h = try ServiceHarness.web(floor: .open)
        let b = try h.browser(width: 360, height: 740)
        try h.join(b, name: "Dana", passcode: "not the passcode")
        try b.poll("the message") { try b.text("#login-error") == "Wrong passcode." }
        XCTAssertFalse(try b.displayed(XCTUnwrap(b.find("#room-view"))))
        XCTAssertNil(try h.device(named: "Dana"))
        try shoot(b, "login-wrong-passcode", width: 360, height: 740)
        // The right one then works on the same page.
        try h.join(b, name: "Dana")
        _ = try b.wait(for: "#room-view", timeout: 30)
        try b.poll("registered") { try h.device(named: "Dana") != nil }
    }

    func testTheServicesErrorsAreShownInWords() throws {
        let h = try ServiceHarness.web(floor: .open) {
            $0.maxUploadMB = 1; $0.maxClients = 2
        }
        let b = try h.browser()
        try h.joinAndWait(b, name: "Eve")
        let toast = { try b.execute("return document.getElementById('toast').textContent") as? String ?? "" }

        // Driving without the floor.
        try b.click("#next")
        try b.poll("noFloor") { try toast() == LecternError.noFloor.message }
        let colours = try b.execute("const c = getComputedStyle(document.getElementById('toast')); return [c.color, c.backgroundColor, c.opacity];") as? [String] ?? []
        XCTAssertEqual(colours.count, 3)
        XCTAssertNotEqual(colours.first, colours.dropFirst().first, "the toast's text must be readable on its background")
        // Someone else has it.
        let other = try h.connect()
        try other.register(name: "Finn", role: .presenter, passcode: ServiceHarness.presenterPass)
        _ = try other.requestFloor()
        try b.poll("the floor status") { try b.text("#floor-status") == "Finn has the floor." }
        try b.click("#next")
        try b.poll("floorTaken") { try toast() == LecternError.floorTaken(holder: other.deviceID).message }
        // Too big a file.
        let big = h.dir + "/big.pdf"
        try Data("%PDF-1.4\n".utf8 + [UInt8](repeating: 0x20, count: 2 << 20)).write(to: URL(fileURLWithPath: big))
        try b.type(try XCTUnwrap(b.find("#file-input")), big)
        let tooLarge = LecternError.fileTooLarge(limit: 1 << 20).message
        try b.poll("fileTooLarge") { try b.text("#upload-text") == "big.pdf: " + tooLarge }
        // Clip controls answer in words too: Finn has the floor, so Eve can't play or pause.
        // (A clip in the list as if uploaded, to get the clip card.)
        try b.execute(
            "window.Lectern.app.files.push({id: '\(String(repeating: "ab", count: 32))', name: 'intro.mp4', kind: 'clip', pages: 0, durationMs: 61000}); window.Lectern.render();")
        _ = try b.wait(for: "#clip-card")
        // Play in an open room takes the floor, after asking: cancelled, Finn keeps it.
        try b.click("#file-list button[data-action=play]")
        _ = try b.wait(for: "#confirm-dialog")
        XCTAssertEqual(try b.text("#confirm-text"), "Take the floor from Finn and show intro.mp4?")
        try b.click("#confirm-no")
        try b.poll("the dialog closed") { try b.execute("return document.getElementById('confirm-dialog').open") as? Bool == false }
        XCTAssertEqual(try h.snapshot().floor.holder, other.deviceID)
        // With no clip on screen, its controls are off (not just dimmed).
        XCTAssertEqual(try b.execute("return ['clip-toggle', 'clip-stop', 'clip-position'].map((i) => document.getElementById(i).disabled)") as? [Bool], [true, true, true])
        // The room is full (2 devices: Eve and Finn).
        let c = try h.browser(width: 360, height: 740)
        try h.join(c, name: "Gus")
        try c.poll("roomFull") { try c.text("#login-error") == LecternError.roomFull(capacity: 2).message }
    }

    /// A reload of the page comes back into the room as the same device, floor and all
    /// (the key and the resume token are kept for the tab in sessionStorage).
    func testAReloadResumesTheSession() throws {
        let h = try ServiceHarness.web(floor: .open)
        let b = try h.browser()
        try h.joinAndWait(b, name: "Hana")
        try b.click("#floor-request")
        try b.poll("the floor") { try b.text("#floor-status") == "You have the floor." }
        let id = try XCTUnwrap(h.device(named: "Hana")).id
        try b.reload()
        _ = try b.wait(for: "#room-view", timeout: 30)
        try b.poll("the floor again") { try b.text("#floor-status") == "You have the floor." }
        XCTAssertEqual(try h.snapshot().floor.holder, id, "the same device id, with the floor")
        XCTAssertEqual(try h.snapshot().devices.count, 1)
        // Leave: the session is gone, a reload shows the form.
        try b.click("#leave")
        _ = try b.wait(for: "#login-form")
        try b.poll("the device to leave") { try h.device(named: "Hana") == nil }
        try b.reload()
        _ = try b.wait(for: "#login-form")
        XCTAssertFalse(try b.displayed(XCTUnwrap(b.find("#room-view"))))
    }
}
