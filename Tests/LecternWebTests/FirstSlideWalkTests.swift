import Foundation
import LecternModel
import LecternProtocol
@testable import LecternService
import LecternTestSupport
import XCTest

/// From scanning the wall's QR code to the first slide on the wall, on a phone (390×844),
/// in the default moderated room and in an open one, the first time and at a second scan
/// (a new tab of the same browser): the taps and characters are counted (`FirstSlideWalk`)
/// and asserted, the time printed.
///
/// TLS on, with the appliance's own self-signed certificate, and a browser that does not
/// trust it: a phone new to the room, which meets the browser's certificate warning.
final class FirstSlideWalkTests: XCTestCase {
    static let name = "Ana's phone"   // 11 characters

    func testTheWalkInTheModeratedRoom() throws {
        try walk(floor: .moderated, first: (taps: 7, typed: 27), second: (taps: 2, typed: 0))
    }

    func testTheWalkInAnOpenRoom() throws {
        try walk(floor: .open, first: (taps: 7, typed: 27), second: (taps: 2, typed: 0))
    }

    /// `screen_code = true`: the QR code carries the code, so only the name is typed, once.
    func testTheWalkWithTheCodeOnTheWall() throws {
        try walk(floor: .moderated, first: (taps: 6, typed: 11), second: (taps: 2, typed: 0)) { c in
            c.passcode = nil
            c.screenCode = true
        }
    }

    func walk(
        floor: FloorMode, first: (taps: Int, typed: Int), second: (taps: Int, typed: Int), file: StaticString = #filePath, line: UInt = #line,
        tweak: (inout Config) -> Void = { _ in }
    ) throws {
        // A HOME of its own: no NSS database, so the browser trusts nothing of the tests'.
        let driver = try ChromeDriver(environment: ["HOME": Fixtures.tempDir("untrusting-home")])
        let h = try ServiceHarness(floor: floor, room: ServiceHarness.webRoom, webRemote: true, tweak: tweak)
        h.attach(driver) { driver.quit() }
        XCTAssertTrue(try XCTUnwrap(h.service.tlsIdentity).selfSigned)
        let pdf = try Fixtures.numberedDeck(count: 3, in: h.dir, name: "plan.pdf")
        let address = try wallAddress(h)
        let phone = try driver.session(width: 390, height: 844)
        let room = h.service.config.screenCode ? "room with the code on the wall" : floor == .open ? "open room" : "moderated room"

        let one = FirstSlideWalk(phone)
        try phone.open(address)
        try walkToTheSlide(one, h: h, pdf: pdf)
        print(one.report("first scan, \(room)"))
        let shot = h.service.config.screenCode ? "code" : floor.rawValue
        try shoot(phone, "walk-\(shot)-first", width: 390, height: 844)
        XCTAssertEqual([one.taps, one.typed], [first.taps, first.typed], "the first scan's taps and characters\n" + one.report("first"), file: file, line: line)

        // Done presenting (not counted): the screen cleared and the floor released; the tab
        // stays open, as on a phone put away.
        try phone.click("#clear-screen")
        try eventually("the wall idle again") { try h.snapshot().screen.content == nil }
        try phone.click("#floor-release")
        try eventually("the floor free") { try h.snapshot().floor.holder == nil }

        // A second scan: a new tab of the same browser.
        let handle = try XCTUnwrap((try phone.call("POST", "/window/new", ["type": "tab"]) as? [String: Any])?["handle"] as? String)
        try phone.call("POST", "/window", ["handle": handle])
        let two = FirstSlideWalk(phone)
        try phone.open(address)
        try walkToTheSlide(two, h: h, pdf: pdf)
        print(two.report("second scan, \(room)"))
        try shoot(phone, "walk-\(shot)-second", width: 390, height: 844)
        XCTAssertEqual([two.taps, two.typed], [second.taps, second.typed], "the second scan's taps and characters\n" + two.report("second"), file: file, line: line)
    }

    /// What the person does: the landing page and the certificate warning, the form (what
    /// the browser doesn't fill or skip), the upload, and Present where it is a step of its own.
    func walkToTheSlide(_ w: FirstSlideWalk, h: ServiceHarness, pdf: String) throws {
        try w.reachThePage()
        var phase = ""
        try w.session.poll("the form or the room", timeout: 30) {
            phase = try w.session.execute("return document.body.dataset.phase") as? String ?? ""
            return phase == "login" || phase == "in"
        }
        if phase == "login" {
            try w.session.poll("the room name from hello") { try w.session.text("#login-room") == ServiceHarness.webRoom }
            let given = try w.session.execute("return document.getElementById('name').value") as? String ?? ""
            if given != Self.name {
                if !given.isEmpty { try w.session.clear(try w.session.wait(for: "#name")) }
                try w.type("#name", Self.name, "the name")
            }
            if try w.session.execute("return document.getElementById('passcode').value") as? String == "" {
                try w.type("#passcode", ServiceHarness.presenterPass, "the passcode")
            }
            try w.tap("#join", "Join")
        }
        _ = try w.session.wait(for: "#room-view", timeout: 30)
        try w.session.poll("the first state") { try w.session.execute("return !!window.Lectern.app.state") as? Bool == true }
        // The newcomer's "Upload and present"; on the page of before, Upload then Present.
        if let one = try w.session.find("#upload-present"), try w.session.displayed(one) {
            try w.pick(pdf, input: "#file-present", "Upload and present")
        } else {
            try w.pick(pdf, input: "#file-input", "Upload slides, photos or clips")
            try w.tap("#file-list button[data-action=present]", "Present", timeout: 30)
        }
        try eventually("the first slide on the wall", timeout: 30) {
            let s = try h.snapshot().screen
            return s.content != nil && s.page == 1
        }
        try h.assertOutputShows(pdf: pdf, page: 1)
    }

    /// The address the idle screen carries (as text and in its QR code), on this machine's
    /// loopback: the tests' browser reaches the service at 127.0.0.1.
    /// `LECTERN_WALK_BEFORE=1` walks from https:// as the wall showed it before the landing
    /// page (with `LECTERN_WEB_DIR` at the page of then: the closing note's "before").
    func wallAddress(_ h: ServiceHarness) throws -> String {
        var url = try XCTUnwrap(h.service.idleScreen(port: h.port).url, "the idle screen shows the web remote's address")
        if ProcessInfo.processInfo.environment["LECTERN_WALK_BEFORE"] == "1" { url = url.replacingOccurrences(of: "http://", with: "https://") }
        let comps = try XCTUnwrap(URLComponents(string: url))
        var local = comps
        local.host = "127.0.0.1"
        XCTAssertEqual(comps.port, h.service.httpPort)
        return try XCTUnwrap(local.string)
    }
}
