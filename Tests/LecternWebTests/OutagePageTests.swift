import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// Issue 27, point 5: what a person sees while the room's Wi-Fi (a FlakyProxy) is down, and
/// after. The "reconnecting" banner stays in view whatever the scroll position; the bottom
/// page-turn bar stays at the bottom (a filter on the card made the card the bar's containing
/// block); a tap is answered; a floor lost to the grace period is shown as lost, with why;
/// `/wall` comes back by itself after a restart.
final class OutagePageTests: XCTestCase {
    /// A phone presenting a 5-page deck through `proxy`, with the floor.
    func presenting(_ h: ServiceHarness, via proxy: FlakyProxy) throws -> WebSession {
        let pdf = try Fixtures.numberedDeck(count: 5, in: h.dir, name: "plan.pdf")
        let b = try h.browser(width: 390, height: 844, via: proxy)
        try h.joinAndWait(b, name: "Ana's phone")
        try b.click("#floor-request")
        try b.poll("the floor") { try b.text("#floor-status") == "You have the floor." }
        try b.type(try XCTUnwrap(b.find("#file-input")), pdf)
        try b.click("#file-list button[data-action=present]", timeout: 30)
        try eventually("page 1 on the wall", timeout: 30, interval: 0.1) { try h.snapshot().screen.page == 1 }
        try b.poll("the page in the bar") { try b.text("#nav-page") == "1 / 5" }
        return b
    }

    /// Where `css` is in the viewport, and whether it is the element seen at its centre.
    func place(_ b: WebSession, _ css: String) throws -> (top: Double, bottom: Double, seen: Bool) {
        let v =
            try b.execute(
                """
                const e = document.querySelector(arguments[0]), r = e.getBoundingClientRect();
                const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
                return [r.top, r.bottom, !!hit && (hit === e || e.contains(hit))];
                """, [css]) as? [Any] ?? []
        func d(_ i: Int) -> Double { (v.count > i ? v[i] as? Double ?? (v[i] as? Int).map(Double.init) : nil) ?? .nan }
        return (d(0), d(1), v.count > 2 ? v[2] as? Bool ?? false : false)
    }

    func testWhileCutOffTheBannerAndTheBarStayInViewAndATapIsAnswered() throws {
        let h = try ServiceHarness.web(floor: .open)
        let proxy = try FlakyProxy(to: h.service.httpPort ?? -1)
        defer { proxy.stop() }
        let b = try presenting(h, via: proxy)
        // Scrolled down to the files, as a presenter is when the Wi-Fi drops.
        try b.execute("window.scrollTo(0, document.documentElement.scrollHeight)")
        XCTAssertGreaterThan(try b.execute("return window.scrollY") as? Int ?? 0, 100, "the page scrolls")
        let height = Double(try b.execute("return window.innerHeight") as? Int ?? 844)

        proxy.outage(seconds: 20)
        try b.poll("reconnecting", timeout: 15) { try b.execute("return window.Lectern.app.phase") as? String == "reconnecting" }
        try b.execute("window.scrollTo(0, document.documentElement.scrollHeight)")
        try b.poll("the banner in view") {
            let banner = try place(b, "#banner")
            return banner.top >= 0 && banner.bottom <= height && banner.seen
        }
        let bar = try place(b, ".stage .nav")
        let bannerText = try b.text("#banner")
        XCTAssertTrue(bannerText.contains("reconnecting"), bannerText)
        XCTAssertEqual(bar.bottom, height, accuracy: 1, "the page-turn bar at the bottom of the screen, not in the page: \(bar)")
        XCTAssertTrue(bar.seen, "the bar is on top")
        // A tap on Next is answered, and nothing is sent.
        try b.click("#next")
        try b.poll("the tap answered") { try b.text("#toast").hasPrefix("Not connected to the appliance — that tap was not sent.") }
        _ = try TestOutput.write(try b.screenshot(), "outage-scrolled-phone-viewport.png")
        XCTAssertEqual(try h.snapshot().screen.page, 1)

        try b.poll("back", timeout: 45) { try b.execute("return window.Lectern.app.phase") as? String == "in" }
        XCTAssertTrue(try b.find("#banner").map { try !b.displayed($0) } ?? true, "the banner gone once back")
        try b.click("#next")
        try eventually("a tap once back turns the page", timeout: 10, interval: 0.1) { try h.snapshot().screen.page == 2 }
    }

    func testAFloorLostToTheGracePeriodIsShownAsLostWithWhy() throws {
        let h = try ServiceHarness.web(floor: .open) { $0.gracePeriod = 3 }
        let proxy = try FlakyProxy(to: h.service.httpPort ?? -1)
        defer { proxy.stop() }
        let b = try presenting(h, via: proxy)
        let ana = try XCTUnwrap(h.device(named: "Ana's phone")).id
        // Away longer than the grace period: the keep-alive finds her gone in 6 s, then 3 s.
        proxy.outage(seconds: 14)
        try eventually("the floor released", timeout: 20, interval: 0.1) { try h.snapshot().floor.holder == nil }
        try b.poll("back in the room", timeout: 45) { try b.execute("return window.Lectern.app.phase") as? String == "in" }
        let why = "You were away longer than 3 s; the floor was released."
        try b.poll("told why") { try b.text("#toast") == why }
        // Kept until dismissed (not a toast that goes in 6 s): the page holds it.
        XCTAssertEqual(try b.execute("return window.Lectern.app.floorLost") as? String, why)
        XCTAssertNotEqual(try b.text("#floor-status"), "You have the floor.")
        XCTAssertEqual(try b.execute("return document.getElementById('live-badge').hidden") as? Bool, true, "not LIVE")
        XCTAssertNil(try h.snapshot().screen.content, "the wall went idle")
        XCTAssertNotEqual(try h.snapshot().floor.holder, ana)
        try shoot(b, "floor-lost-after-outage", width: 390, height: 844)
    }

    func testTheWallViewComesBackByItselfAfterARestart() throws {
        let h = try ServiceHarness.web()
        let proxy = try FlakyProxy(to: h.service.httpPort ?? -1)
        defer { proxy.stop() }
        let s = try XCTUnwrap(h.driver).session(width: 1280, height: 800)
        try s.open(h.url(via: proxy) + "wall")
        try s.type(try s.wait(for: "#wall-passcode"), ServiceHarness.moderatorPass)
        try s.click("#wall-join")
        try s.poll("the first frame") { try s.execute("return Number(document.getElementById('wall-img').dataset.frames || 0)") as? Int ?? 0 >= 1 }

        try h.restart()
        proxy.retarget(to: h.service.httpPort ?? -1)
        let alice = try h.presenter("Alice")
        let pdf = try Fixtures.numberedDeck(count: 2, in: Fixtures.tempDir("wall-restart"))
        let stored = try alice.upload(path: pdf)
        _ = try alice.requestFloor()
        try alice.present(stored.content, page: 2)
        let page = try h.expectedFrame(pdf: pdf, page: 2)
        try s.poll("the wall shows page 2 after the restart, by itself", timeout: 40) {
            guard let f = try s.wallFrame() else { return false }
            return PixelCompare.differingPixels(f, page) == 0
        }
        XCTAssertEqual(try s.execute("return document.getElementById('wall-login').hidden") as? Bool, true, "no passcode asked again")
        XCTAssertEqual(try s.execute("const e = document.getElementById('wall-status'); return !e || e.hidden") as? Bool, true, "not marked stale")
        _ = try TestOutput.write(try s.screenshot(), "wall-after-restart-laptop.png")
    }
}
