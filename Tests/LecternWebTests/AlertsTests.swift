import Foundation
import LecternClient
import LecternModel
import LecternProtocol
@testable import LecternService
import LecternTestSupport
import XCTest

/// Who waits is told to those who act on it: the moderator (toast, the tab's title, a sound
/// if switched on) and the presenter holding the floor; a removed presenter waits for the
/// cool-down before joining again; a page cut off looks stale with its controls off.
final class AlertsTests: XCTestCase {
    func testTheModeratorAndThePresenterAreToldWhoWaits() throws {
        let h = try ServiceHarness.web(floor: .moderated) { $0.removeCooldown = 45 }
        let mod = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(mod, name: "Mo", role: .moderator)
        try mod.click("label:has(#alert-sound)")
        let ana = try h.browser(width: 390, height: 844)
        try h.joinAndWait(ana, name: "Ana's phone")
        let anaID = try XCTUnwrap(h.device(named: "Ana's phone")).id
        try h.moderator("Mo2").moderate(.grant, target: anaID)
        try ana.poll("Ana has the floor") { try ana.text("#floor-status") == "You have the floor." }

        let finn = try h.presenter("Finn")
        _ = try finn.requestFloor()
        try mod.poll("the moderator's toast") { try mod.text("#toast") == "Finn asks for the floor." }
        try mod.poll("the title's count") { try mod.execute("return document.title") as? String == "(1) Room 4.12 · Lectern" }
        try mod.poll("the chime") { try mod.execute("return window.Lectern.app.chimes || 0") as? Int == 1 }
        try ana.poll("Ana is told") { try ana.text("#waiting-note") == "Finn is waiting for the floor." }
        XCTAssertEqual(try ana.execute("return document.title") as? String, "(1) Room 4.12 · Lectern")
        try shoot(mod, "moderator-alerted", width: 1366, height: 768)
        try shoot(ana, "presenter-someone-waits", width: 390, height: 844)

        // Removed: Ana's page is out, and joining again waits for the cool-down.
        let remove = "#device-list button[data-action=kick][data-device='\(anaID)']"
        try mod.click(remove)
        try mod.poll("the confirmation") { try mod.text(remove) == "Sure? Remove" }
        try mod.click(remove)
        try ana.poll("the removed message") { try ana.text("#login-error") == LecternError.kicked.message }
        try h.join(ana, name: "Ana's phone")
        try ana.poll("the cool-down") {
            try ana.text("#login-error").hasPrefix("The moderator removed you from the room — you can join again in 4")
        }
        XCTAssertNil(try h.device(named: "Ana's phone"))
        try shoot(ana, "removed-cooling-down", width: 390, height: 844)
    }

    func testACutOffPageLooksStaleWithItsControlsOff() throws {
        let h = try ServiceHarness.web(floor: .open)
        let proxy = try FlakyProxy(to: h.service.httpPort ?? -1)
        defer { proxy.stop() }
        let b = try h.browser(width: 390, height: 844, via: proxy)
        try h.joinAndWait(b, name: "Ana's phone")
        try b.click("#floor-request")
        try b.poll("the floor") { try b.text("#floor-status") == "You have the floor." }
        try b.poll("LIVE") { try b.displayed(XCTUnwrap(b.find("#live-badge"))) }
        proxy.outage(seconds: 15)
        try b.poll("reconnecting", timeout: 15) { try b.execute("return window.Lectern.app.phase") as? String == "reconnecting" }
        let state =
            try b.execute(
                """
                const ids = ['next', 'prev', 'floor-release', 'file-input', 'clear-screen'];
                const off = (e) => e.disabled || e.getAttribute('aria-disabled') === 'true';
                return [ids.filter((i) => !off(document.getElementById(i))), getComputedStyle(document.querySelector('.stage .preview')).filter,
                        document.getElementById('live-badge').hidden];
                """) as? [Any] ?? []
        XCTAssertEqual(state.first as? [String], [], "controls still enabled while cut off")
        XCTAssertEqual(state.count > 1 ? state[1] as? String : nil, "grayscale(1)")
        XCTAssertEqual(state.count > 2 ? state[2] as? Bool : nil, true, "no LIVE while cut off")
        try shoot(b, "presenter-reconnecting", width: 390, height: 844)
        try b.poll("back", timeout: 40) { try b.execute("return window.Lectern.app.phase") as? String == "in" }
        XCTAssertEqual(
            try b.execute("const n = document.getElementById('next'); return n.disabled || n.getAttribute('aria-disabled') === 'true'") as? Bool, false)
    }
}
