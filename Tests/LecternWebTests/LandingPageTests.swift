import Foundation
import LecternModel
import LecternProtocol
@testable import LecternService
import LecternTestSupport
import XCTest

/// The landing page (docs/protocol.md §28) in a real Chromium that does not know the room's
/// self-signed certificate (a phone new to the room; TLS on, as shipped), through a proxy
/// that keeps every byte the browser sends: the wall's http:// address opens the page (the
/// sentence, the wall's fingerprint, Continue to https:// at the same address), and nothing
/// secret ever crosses in plain, neither a typed passcode nor the code from the QR code.
final class LandingPageTests: XCTestCase {
    func untrustingBrowser(_ tweak: @escaping (inout Config) -> Void = { _ in }) throws -> (ServiceHarness, WebSession, RecordingProxy) {
        // A HOME of its own: no NSS database, so the browser trusts nothing of the tests'.
        let driver = try ChromeDriver(environment: ["HOME": Fixtures.tempDir("untrusting-home")])
        let h = try ServiceHarness(floor: .moderated, room: ServiceHarness.webRoom, webRemote: true, tweak: tweak)
        h.attach(driver) { driver.quit() }
        let proxy = try RecordingProxy(to: try XCTUnwrap(h.service.httpPort))
        h.attach(proxy) { proxy.stop() }
        return (h, try driver.session(width: 390, height: 844), proxy)
    }

    /// On the landing page: what it says and where it goes; then on through the browser's warning.
    func checkLanding(_ h: ServiceHarness, _ b: WebSession, proxy: RecordingProxy, fragment: String = "") throws {
        let fingerprint = try XCTUnwrap(h.service.tlsIdentity).fingerprint.short
        XCTAssertEqual(h.service.idleScreen(port: h.port).fingerprint, fingerprint, "the wall shows the same fingerprint")
        _ = try b.wait(for: "#continue")
        try b.poll("the page's check of the certificate") { try b.execute("return document.body.dataset.probe") as? String == "unknown" }
        XCTAssertEqual(try b.execute("return location.protocol") as? String, "http:")
        XCTAssertEqual(try b.text("#fingerprint"), fingerprint)
        XCTAssertEqual(try b.text("#warning"), LandingPage.sentence)
        XCTAssertEqual(try b.text("#room"), ServiceHarness.webRoom)
        XCTAssertEqual(try b.execute("return document.querySelectorAll('input, textarea, select, form').length") as? Int, 0, "nothing to type in plain")
        XCTAssertEqual(try b.execute("return document.getElementById('continue').href") as? String, "https://127.0.0.1:\(proxy.port)/" + fragment)
        try shoot(b, "landing", width: 390, height: 844)
        try b.click("#continue")
        try b.click("#details-button")
        try b.click("#proceed-link")
        _ = try b.wait(for: "#login-form, #room-view", timeout: 30)
        XCTAssertEqual(try b.execute("return location.protocol") as? String, "https:")
    }

    func testTheLandingPageNeverReceivesAPasscode() throws {
        let (h, b, proxy) = try untrustingBrowser()
        let idle = try XCTUnwrap(h.service.idleScreen(port: h.port).url)
        XCTAssertTrue(idle.hasPrefix("http://"), "the wall's address opens the landing page: \(idle)")
        try b.open("http://127.0.0.1:\(proxy.port)/")
        try checkLanding(h, b, proxy: proxy)
        try b.poll("the room name from hello") { try b.text("#login-room") == ServiceHarness.webRoom }
        try h.joinAndWait(b, name: "Ana's phone")
        XCTAssertNotNil(try h.device(named: "Ana's phone"))

        let plain = proxy.plain
        XCTAssertTrue(plain.contains { $0.starts(with: Array("GET / HTTP/1.1\r\n".utf8)) }, "the landing page came in plain")
        for secret in [ServiceHarness.presenterPass, "Ana's phone", "Ana%27s", "/ws"] {
            XCTAssertFalse(plain.contains { $0.contains(bytes: Array(secret.utf8)) }, "'\(secret)' crossed in plain")
        }
        XCTAssertFalse(proxy.tls.isEmpty, "the page and the join went over TLS, through the same address")
    }

    /// The code of `screen_code` rides in the QR code's fragment: carried on to https:// by
    /// the landing page, never sent in plain; with it and a name, joining is one tap.
    func testTheCodeFromTheQRCodeNeverCrossesInPlain() throws {
        let (h, b, proxy) = try untrustingBrowser { c in c.screenCode = true }
        let code = try XCTUnwrap(h.service.currentScreenCode)
        let idle = try XCTUnwrap(h.service.idleScreen(port: h.port).url)
        XCTAssertTrue(idle.hasPrefix("http://") && idle.hasSuffix("/#code=\(code)"), idle)
        try b.open("http://127.0.0.1:\(proxy.port)/#code=\(code)")
        try checkLanding(h, b, proxy: proxy, fragment: "#code=\(code)")
        XCTAssertEqual(try b.execute("return document.getElementById('passcode').value") as? String, code, "the code filled in from the fragment")
        // The form is up before hello has come: a name typed while the page still connects
        // joins by itself once it has (the code is there), with no Join to tap.
        try b.poll("the page connected") { try b.execute("return document.body.dataset.phase") as? String == "login" }
        try b.type(try b.wait(for: "#name"), "Ana's phone")
        try b.click("#join")
        _ = try b.wait(for: "#room-view", timeout: 30)
        XCTAssertNotNil(try h.device(named: "Ana's phone"))
        for bytes in proxy.plain {
            XCTAssertFalse(bytes.contains(bytes: Array(code.utf8)), "the code crossed in plain: \(String(decoding: bytes, as: UTF8.self))")
        }
    }

    /// A certificate browsers trust (the admin's): no landing page, the address is https://
    /// and a plain request is sent there as before.
    func testWithTheAdminsCertificateTheWallShowsHTTPS() throws {
        let h = try ServiceHarness.web(browsers: false)
        XCTAssertFalse(try XCTUnwrap(h.service.tlsIdentity).selfSigned)
        XCTAssertTrue(h.service.idleScreen(port: h.port).url?.hasPrefix("https://") == true)
        let r = try HTTP.send("GET", h.plainURL)
        XCTAssertEqual(r.status, 301)
        XCTAssertEqual(r.headers["location"], h.httpsURL)
    }
}
