import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol
@testable import LecternService
import LecternTestSupport
import XCTest

/// The room's Wi-Fi dropping under a presenter: a real Chromium reaching the service through
/// a FlakyProxy that freezes the open connection and refuses new ones for the outage. After
/// each outage the presenter is back as the same device, with the floor, on the same page;
/// the page tried at most once per back-off step; the moderator sees no ghost.
///
/// The outages are `LECTERN_OUTAGES` seconds (comma-separated); `make test` runs 3 and 12 s,
/// `make test-outages` all four of the issue (3, 12, 20, 40 s: about two minutes more).
final class OutageTests: XCTestCase {
    /// The page's back-off (Web/core/backoff.js BACKOFF_MS): each step waits at least this long.
    static let backoff: [Double] = [0.5, 1, 2, 4]

    static var outages: [Double] {
        let list = ProcessInfo.processInfo.environment["LECTERN_OUTAGES"] ?? "3,12"
        return list.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// The most connection attempts one reconnect chain can make in `seconds` (a step's
    /// wait is never shorter than its back-off), plus the one that gets through.
    static func mostAttempts(in seconds: Double) -> Int {
        var t = 0.0, n = 0
        while true {
            t += backoff[min(n, backoff.count - 1)]
            guard t <= seconds else { break }
            n += 1
        }
        return n + 1
    }

    func testThePresenterSurvivesWiFiOutages() throws {
        let h = try ServiceHarness.web(floor: .open)
        let proxy = try FlakyProxy(to: h.service.httpPort ?? -1)
        defer { proxy.stop() }
        let pdf = try Fixtures.numberedDeck(count: 5, in: h.dir, name: "plan.pdf")

        let b = try h.browser(width: 390, height: 844, via: proxy)
        try h.joinAndWait(b, name: "Ana's phone")
        try b.click("#floor-request")
        try b.poll("the floor") { try b.text("#floor-status") == "You have the floor." }
        try b.type(try XCTUnwrap(b.find("#file-input")), pdf)
        try b.click("#file-list button[data-action=present]", timeout: 30)
        try h.assertOutputShows(pdf: pdf, page: 1)
        let ana = try XCTUnwrap(h.device(named: "Ana's phone")).id

        // The moderator, on a good connection, watches the list of people.
        let mod = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(mod, name: "Mo", role: .moderator)

        var table: [String] = []
        for (i, seconds) in Self.outages.enumerated() {
            // A different page before each outage, to come back to.
            let page = 2 + i % 4
            try b.execute("document.activeElement && document.activeElement.blur()")
            let goto = try b.wait(for: "#goto-page")
            try b.type(goto, "\(page)")
            try b.click("#goto-form button")
            try h.assertOutputShows(pdf: pdf, page: page)

            let before = proxy.attempts
            try b.execute("window.__linkBefore = window.Lectern.app.link")
            let start = MonotonicClock.now()
            proxy.outage(seconds: seconds)
            try eventually("the \(seconds)-s outage to end", timeout: seconds + 5, interval: 0.1) { !proxy.inOutage }
            let ended = MonotonicClock.now()
            // Back: the same device, with the floor, on the same page; connected.
            try eventually("Ana back in the room after a \(seconds)-s outage", timeout: 30, interval: 0.1) {
                let s = try h.snapshot()
                guard let d = s.devices.first(where: { $0.name == "Ana's phone" }) else { return false }
                return d.connected && s.floor.holder == ana && d.id == ana
            }
            // On a new connection (the old one was cut by the outage), in the room, with the floor.
            try b.poll("the page back in the room with the floor", timeout: 30) {
                try b.execute("const a = window.Lectern.app; return a.link !== window.__linkBefore && a.phase === 'in'") as? Bool == true
                    && b.text("#floor-status") == "You have the floor."
            }
            try eventually("Ana connected on the new connection", timeout: 10, interval: 0.1) {
                try h.device(named: "Ana's phone")?.connected == true && h.snapshot().floor.holder == ana
            }
            let back = MonotonicClock.now()
            XCTAssertEqual(try h.snapshot().screen.page, UInt32(page), "after a \(seconds)-s outage the wall is on page \(page)")
            try b.poll("the page label") { try b.text("#page-label") == "\(page) / 5" }
            XCTAssertEqual(try b.execute("return window.Lectern.app.session && window.Lectern.app.session.id") as? Int, Int(ana))

            // One chain: attempts no more often than the back-off allows. Over TLS, Chromium
            // opens a second connection at once (~10 ms later) when the first is reset in its
            // handshake: one attempt of the page's, counted once.
            let sockets = proxy.attemptTimes.filter { $0 >= start }
            let times = sockets.enumerated().filter { $0.offset == 0 || $0.element - sockets[$0.offset - 1] >= 0.05 }.map(\.element)
            let attempts = proxy.attempts - before - (sockets.count - times.count)
            XCTAssertLessThanOrEqual(attempts, Self.mostAttempts(in: back - start) + 1, "\(seconds)-s outage: \(attempts) connection attempts")
            for (a, b) in zip(times, times.dropFirst()) {
                XCTAssertGreaterThanOrEqual(b - a, Self.backoff[0] - 0.05, "\(seconds)-s outage: two attempts \(b - a) s apart (two reconnect chains?)")
            }
            // No ghost: one Ana, connected, in the service and in the moderator's list.
            let s = try h.snapshot()
            XCTAssertEqual(s.devices.filter { $0.name == "Ana's phone" }.count, 1, "one Ana after a \(seconds)-s outage")
            XCTAssertEqual(s.devices.count, 2, "Ana and the moderator: \(s.devices.map(\.name))")
            try mod.poll("the moderator's list: one Ana, not reconnecting") {
                let list = try mod.text("#device-list")
                return list.components(separatedBy: "Ana's phone").count == 2 && !list.contains("reconnecting")
            }
            table.append(
                String(
                    format: "outage %4.0f s | back %.1f s after it ended | %d connection attempts (at most %d) | floor kept, page %d", seconds, back - ended, attempts,
                    Self.mostAttempts(in: back - start) + 1, page))
        }
        try shoot(b, "presenter-after-outage", width: 390, height: 844)
        print("outage table:\n" + table.joined(separator: "\n"))
    }

    /// The passcode really changed over a restart: the page says so, honestly, and the new
    /// one gets in.
    func testARestartWithANewPasscodeSaysSo() throws {
        let h = try ServiceHarness.web(floor: .open)
        let proxy = try FlakyProxy(to: h.service.httpPort ?? -1)
        defer { proxy.stop() }
        let b = try h.browser(width: 390, height: 844, via: proxy)
        try h.joinAndWait(b, name: "Ana's phone")
        try h.restart { $0.passcode = "a-new-passcode-2" }
        proxy.retarget(to: h.service.httpPort ?? -1)
        try b.poll("the honest message", timeout: 40) { try b.text("#login-error") == "The passcode of this room has changed: join again." }
        try shoot(b, "login-passcode-changed", width: 390, height: 844)
        try h.join(b, name: "Ana's phone", passcode: "a-new-passcode-2")
        _ = try b.wait(for: "#room-view", timeout: 30)
        try b.poll("in with the new passcode") { try h.device(named: "Ana's phone") != nil }
    }

    /// The appliance restarts (plain passcodes, as most admins write them): every page comes
    /// back into the room on its own, without the login form ever showing; the presenter
    /// with the floor, the same device, on the same page.
    func testARestartResumesEveryBrowserWithoutAPrompt() throws {
        let h = try ServiceHarness.web(floor: .open)
        let proxy = try FlakyProxy(to: h.service.httpPort ?? -1)
        defer { proxy.stop() }
        let pdf = try Fixtures.numberedDeck(count: 4, in: h.dir, name: "plan.pdf")
        guard let driver = h.driver else { return XCTFail("no browsers") }
        func open(_ width: Int, _ height: Int) throws -> WebSession {
            let s = try driver.session(width: width, height: height)
            try s.open(h.url(via: proxy))
            _ = try s.wait(for: "#login-form")
            return s
        }
        let ana = try open(390, 844), mo = try open(1366, 768), eve = try open(360, 640)
        try h.joinAndWait(ana, name: "Ana's phone")
        try h.joinAndWait(mo, name: "Mo", role: .moderator)
        try h.joinAndWait(eve, name: "Eve")
        try ana.click("#floor-request")
        try ana.poll("the floor") { try ana.text("#floor-status") == "You have the floor." }
        try ana.type(try XCTUnwrap(ana.find("#file-input")), pdf)
        try ana.click("#file-list button[data-action=present]", timeout: 30)
        try h.assertOutputShows(pdf: pdf, page: 1)
        try ana.click("#next")
        try ana.click("#next")
        try h.assertOutputShows(pdf: pdf, page: 3)
        let ids = try ["Ana's phone", "Mo", "Eve"].map { try XCTUnwrap(h.device(named: $0)).id }
        // Every phase each page goes through from now on.
        for b in [ana, mo, eve] {
            try b.execute(
                """
                window.__phases = [];
                new MutationObserver(() => window.__phases.push(document.body.dataset.phase))
                  .observe(document.body, { attributes: true, attributeFilter: ['data-phase'] });
                """)
        }
        let t0 = MonotonicClock.now()
        try h.restart()
        proxy.retarget(to: h.service.httpPort ?? -1)
        try eventually("all three back", timeout: 40, interval: 0.1) {
            let s = try h.snapshot()
            return s.devices.filter(\.connected).count == 3
        }
        var slowest = 0.0
        for (b, name) in [(ana, "Ana"), (mo, "Mo"), (eve, "Eve")] {
            try b.poll("\(name)'s page back in the room") { try b.execute("return window.Lectern.app.phase") as? String == "in" }
            slowest = max(slowest, MonotonicClock.now() - t0)
            let phases = try b.execute("return window.__phases") as? [String] ?? []
            XCTAssertFalse(phases.contains("login"), "\(name)'s page showed the login form: \(phases)")
            XCTAssertEqual(try b.text("#login-error"), "", "\(name)'s page")
        }
        let s = try h.snapshot()
        // Only the floor holder's device is kept over a restart (state.json); the others come back
        // as themselves under a new id. Three people, no ghosts.
        XCTAssertEqual(s.devices.map(\.name).sorted(), ["Ana's phone", "Eve", "Mo"], "no ghosts")
        XCTAssertEqual(try h.device(named: "Ana's phone")?.id, ids[0], "Ana is the same device")
        XCTAssertEqual(s.floor.holder, ids[0], "Ana keeps the floor")
        XCTAssertEqual(s.screen.page, 3)
        try ana.poll("Ana's page: the floor, page 3") { try ana.text("#floor-status") == "You have the floor." && ana.text("#page-label") == "3 / 4" }
        try mo.poll("the moderator's list: nobody reconnecting") { try !mo.text("#device-list").contains("reconnecting") }
        print(String(format: "restart: every browser back in the room %.1f s after the restart began (no passcode prompt)", slowest))
    }
}
