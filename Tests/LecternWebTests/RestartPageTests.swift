import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
import LecternTestSupport
import XCTest

/// Issue 27, "State that survives a restart honestly": a real `lecternd` (TLS on, the
/// admin's kind of certificate, which the browsers trust) is killed with SIGKILL in the
/// middle of a talk and started again. Every page comes back by itself — the presenter's
/// phone, the moderator's laptop, a viewer's phone and `/wall` — and after the next page
/// turn from the phone each shows the wall's page. The state's revision started again from
/// a small number (it was in the tens before): only its epoch (§14.1) tells the pages that
/// this is the room now. Before, the phone and the moderator dropped every push as "older"
/// and stayed on the page of before the restart, and `/wall` never reconnected.
final class RestartPageTests: XCTestCase {
    static let room = ServiceHarness.webRoom
    static let pass = "restart-presenter-1"
    static let moderatorPass = "restart-moderator-1"

    struct Appliance {
        let dir = Fixtures.tempDir("restart-web")
        let httpPort: Int
        let tls: ServiceHarness.WebTLS
        var configPath: String { dir + "/lectern.toml" }
        var url: String { "https://127.0.0.1:\(httpPort)/" }

        init(tls: ServiceHarness.WebTLS) throws {
            self.tls = tls
            httpPort = try Fixtures.freePort()
            try """
            room = "\(RestartPageTests.room)"
            http_port = \(httpPort)
            passcode = "\(RestartPageTests.pass)"
            moderator_passcode = "\(RestartPageTests.moderatorPass)"
            floor = "open"
            data_dir = "\(dir)/data"
            grace_period = 300
            tls_certificate = "\(tls.certificates.certificatePath)"
            tls_key = "\(tls.certificates.keyPath)"
            [display]
            output = "virtual"
            mode = "1280x720@60"
            """.write(toFile: configPath, atomically: true, encoding: .utf8)
            chmod(configPath, 0o600)
        }

        /// lecternd started on this config; its protocol port.
        func start() throws -> (RunningProcess, Int) {
            let p = try RunningProcess(try Fixtures.binary("lecternd"), ["--config", configPath, "--host", "127.0.0.1", "--port", "0"])
            let out = try p.waitForOutput { $0.contains("listening on port ") && $0.contains("web remote: https://") }
            let port = Int((out.components(separatedBy: "listening on port ").last ?? "").prefix { $0.isNumber }) ?? 0
            return (p, port)
        }

        /// A protocol client pinned to the room's certificate.
        func client(port: Int, name: String, role: Role) throws -> LecternConnection {
            let c = try LecternConnection(host: "127.0.0.1", port: port, tls: .pinned(tls.certificates.fingerprint))
            try c.register(name: name, role: role, passcode: role == .moderator ? RestartPageTests.moderatorPass : RestartPageTests.pass)
            return c
        }
    }

    func open(_ driver: ChromeDriver, _ url: String, width: Int, height: Int) throws -> WebSession {
        let s = try driver.session(width: width, height: height)
        try s.open(url)
        return s
    }

    func join(_ s: WebSession, name: String, moderator: Bool = false) throws {
        _ = try s.wait(for: "#login-form")
        try s.poll("the room name from hello") { try s.text("#login-room") == Self.room }
        try s.type(try s.wait(for: "#name"), name)
        try s.type(try s.wait(for: "#passcode"), moderator ? Self.moderatorPass : Self.pass)
        try s.click(moderator ? "label:has(#role-moderator)" : "label:has(#role-presenter)")
        try s.click("#join")
        _ = try s.wait(for: "#room-view", timeout: 30)
        try s.poll("the first state") { try s.execute("return !!(window.Lectern.app.state)") as? Bool == true }
    }

    func testAfterAKill9MidTalkEveryPageShowsTheWallsPage() throws {
        let tls = try ServiceHarness.WebTLS.shared()
        let driver = try ChromeDriver(environment: ["HOME": tls.home])
        defer { driver.quit() }
        let a = try Appliance(tls: tls)
        var (p, port) = try a.start()
        defer { p.kill(SIGKILL); _ = p.waitForExit() }
        let pdf = try Fixtures.numberedDeck(count: 5, in: a.dir, name: "plan.pdf")

        // Ana presents from her phone; Mo moderates from a laptop; a viewer follows; /wall.
        let ana = try open(driver, a.url, width: 390, height: 844)
        try join(ana, name: "Ana's phone")
        let mo = try open(driver, a.url, width: 1366, height: 768)
        try join(mo, name: "Mo", moderator: true)
        let viewer = try open(driver, a.url + "viewer.html", width: 390, height: 844)
        try viewer.type(try viewer.wait(for: "#v-passcode"), Self.pass)
        try viewer.click("#v-join")
        _ = try viewer.wait(for: "#audience-view:not([hidden])", timeout: 30)
        let wall = try open(driver, a.url + "wall", width: 1280, height: 800)
        try wall.type(try wall.wait(for: "#wall-passcode"), Self.moderatorPass)
        try wall.click("#wall-join")
        try wall.poll("the wall's first frame") { try wall.execute("return Number(document.getElementById('wall-img').dataset.frames || 0)") as? Int ?? 0 >= 1 }

        try ana.click("#floor-request")
        try ana.poll("the floor") { try ana.text("#floor-status") == "You have the floor." }
        try ana.type(try XCTUnwrap(ana.find("#file-input")), pdf)
        try ana.click("#file-list button[data-action=present]", timeout: 30)
        var desk = try a.client(port: port, name: "Desk", role: .moderator)
        _ = try desk.waitForState(timeout: 30) { $0.screen.page == 1 && $0.screen.content != nil }
        try ana.click("#next")
        try ana.click("#next")
        _ = try desk.waitForState(timeout: 20) { $0.screen.page == 3 }
        // A long meeting in short: the moderator blanks and unblanks the wall twenty times.
        for _ in 0..<20 {
            try desk.control(.blank(white: false))
            try desk.control(.unblank)
        }
        let before = try desk.state()
        XCTAssertEqual(before.screen.page, 3)
        try ana.poll("Ana's page on 3 / 5 before the crash") { try ana.text("#page-label") == "3 / 5" }
        let revisionBefore = try XCTUnwrap(ana.execute("return window.Lectern.app.state.revision") as? Int)

        // kill -9 in the middle of the talk, and the appliance starts again.
        p.kill(SIGKILL)
        XCTAssertEqual(p.waitForExit(), SIGKILL)
        (p, port) = try a.start()
        desk = try a.client(port: port, name: "Desk", role: .moderator)
        // Every page back by itself: Ana with the floor, the moderator, the viewer, the wall.
        try eventually("Ana back with the floor", timeout: 60, interval: 0.2) {
            let s = try desk.state()
            let ana = s.devices.first { $0.name == "Ana's phone" }
            return ana?.connected == true && s.floor.holder == ana?.id && s.devices.contains { $0.name == "Mo" && $0.connected }
        }
        for (s, who) in [(ana, "Ana"), (mo, "Mo")] {
            try s.poll("\(who)'s page in the room", timeout: 30) { try s.execute("return window.Lectern.app.phase") as? String == "in" }
        }
        let after = try desk.state()
        XCTAssertNotEqual(after.epoch, before.epoch, "a new run of the service, a new epoch")
        XCTAssertLessThan(after.revision, UInt64(revisionBefore), "the revision started again: only the epoch tells")

        // Next from the phone: every page shows the wall's page.
        try ana.click("#next")
        _ = try desk.waitForState(timeout: 20) { $0.screen.page == 4 }
        try ana.poll("Ana's phone shows the wall's page") { try ana.text("#page-label") == "4 / 5" }
        try mo.poll("the moderator's laptop shows the wall's page") { try mo.text("#page-label") == "4 / 5" }
        try viewer.poll("the viewer following the new run", timeout: 30) {
            try viewer.execute("const v = window.LecternViewer; return !!(v.state && v.state.epoch === arguments[0])", [after.epoch ?? ""]) as? Bool == true
        }
        try viewer.poll("the viewer's phone shows the wall's page") {
            try viewer.execute("return document.getElementById('slide').dataset.page") as? String == "4"
        }
        let expected = try PNG.decode(desk.screenshot())
        try wall.poll("/wall back by itself, showing the wall's frame exactly", timeout: 30) {
            guard let f = try wall.wallFrame() else { return false }
            return PixelCompare.differingPixels(f, expected) == 0
        }
        XCTAssertEqual(try wall.execute("return document.getElementById('wall-login').hidden") as? Bool, true, "no passcode asked again")
        try shoot(ana, "restart-kill9-phone", width: 390, height: 844)
        try shoot(mo, "restart-kill9-moderator", width: 1366, height: 768)
        try shoot(viewer, "restart-kill9-viewer", width: 390, height: 844)
        _ = try TestOutput.write(try wall.screenshot(), "restart-kill9-wall-laptop.png")
        p.kill(SIGTERM)
        _ = p.waitForExit()
    }
}
