import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternPipeline
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// What only the web tests need of the service harness: the web remote on, the room they
/// know, and the browsers the test drives against it (chromedriver, one per harness).
extension ServiceHarness {
    static let webRoom = "Room 4.12"

    /// The web tests' TLS, made once per test process: a CA of the tests' own, the
    /// service's certificate it signed (the admin's kind: `tls_certificate`), and a HOME
    /// whose NSS database trusts the CA, for the browsers. Pages load over https:// as a
    /// room with its admin's certificate serves them, without a certificate warning.
    struct WebTLS: Sendable {
        let certificates: TestCertificates
        let home: String

        private static let made = Result { () throws -> WebTLS in
            let certificates = try TestCertificates(dir: Fixtures.tempDir("web-tls"))
            return WebTLS(certificates: certificates, home: try HTTPSPageTests.trustingHome(ca: certificates.caPath))
        }

        static func shared() throws -> WebTLS { try made.get() }
    }

    /// A service with the web remote on any free HTTP port, in "Room 4.12", and (with
    /// `browsers`) a chromedriver to open browser windows with. TLS on, as shipped, with
    /// the certificate the browsers trust (`WebTLS`); a test about plain turns it off.
    static func web(
        floor: FloorMode = .open, browsers: Bool = true,
        tweak: (inout Config) -> Void = { _ in }
    ) throws -> ServiceHarness {
        let tls = try WebTLS.shared()
        // Browsers first: a missing chromium fails the test here, loudly, before anything runs.
        let driver = browsers ? try ChromeDriver(environment: ["HOME": tls.home]) : nil
        let h: ServiceHarness
        do {
            h = try ServiceHarness(floor: floor, room: webRoom, webRemote: true) { c in
                tweak(&c)
                if c.tls && c.tlsCertificate == nil {
                    c.tlsCertificate = tls.certificates.certificatePath
                    c.tlsKey = tls.certificates.keyPath
                }
            }
        } catch {
            driver?.quit()
            throw error
        }
        if let driver { h.attach(driver) { driver.quit() } }
        return h
    }

    var driver: ChromeDriver? { attachment(ChromeDriver.self) }

    /// The web remote's address through `proxy` (the room's Wi-Fi): TLS passes through it.
    func url(via proxy: FlakyProxy) -> String { "\(scheme)://127.0.0.1:\(proxy.port)/" }

    /// A browser window on the web remote; `via` a FlakyProxy when the test plays the room's Wi-Fi.
    func browser(width: Int = 1366, height: Int = 768, query: String = "", via proxy: FlakyProxy? = nil, arguments: [String] = []) throws -> WebSession {
        guard let driver else { throw WebDriverError("this harness has no browsers") }
        let s = try driver.session(width: width, height: height, arguments: arguments)
        try s.open((proxy.map { url(via: $0) } ?? url) + query)
        _ = try s.wait(for: "#login-form")
        try s.poll("the room name from hello") { try s.text("#login-room") == Self.webRoom }
        return s
    }

    /// Fills the form and joins; waits for the room view.
    func join(_ s: WebSession, name: String, role: Role = .presenter, passcode: String? = nil) throws {
        let nameField = try s.wait(for: "#name")
        try s.clear(nameField)
        try s.type(nameField, name)
        let pass = try s.wait(for: "#passcode")
        try s.clear(pass)
        try s.type(pass, passcode ?? (role == .presenter ? Self.presenterPass : Self.moderatorPass))
        try s.click(role == .presenter ? "label:has(#role-presenter)" : "label:has(#role-moderator)")
        try s.click("#join")
    }

    func joinAndWait(_ s: WebSession, name: String, role: Role = .presenter) throws {
        try join(s, name: name, role: role)
        _ = try s.wait(for: "#room-view", timeout: 30)
        try s.poll("the first state") { try s.execute("return !!(window.Lectern.app.state)") as? Bool == true }
    }

    /// The room as the service sees it.
    func snapshot() throws -> Snapshot {
        let room = service.room
        return try room.loop.submit { room.snapshot() }.wait()
    }

    func device(named name: String) throws -> DeviceSnapshot? { try snapshot().devices.first { $0.name == name } }

    /// Waits until the page's next-slide thumbnail shows `page`, then checks it pixel for
    /// pixel against the pipeline's render of that page at the thumbnail's size.
    func assertNextSlide(_ b: WebSession, pdf: String, page: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        try b.poll("the next slide: page \(page)") {
            try b.execute(
                """
                const n = window.Lectern.app.next, img = document.getElementById('next-img');
                return !document.getElementById('upnext').hidden && n.key.endsWith('#' + arguments[0])
                  && n.done === n.key && n.url === img.src && img.complete && img.naturalWidth > 0
                """, [page]) as? Bool == true
        }
        let b64 =
            try b.executeAsync(
                """
                const done = arguments[arguments.length - 1];
                window.Lectern.app.next.png.arrayBuffer().then((buf) => {
                  const u = new Uint8Array(buf);
                  let s = '';
                  for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode.apply(null, u.subarray(i, i + 0x8000));
                  done(btoa(s));
                }, (e) => done('failed: ' + e));
                """) as? String ?? ""
        guard let png = Data(base64Encoded: b64) else { return XCTFail("the thumbnail's bytes: \(b64.prefix(80))", file: file, line: line) }
        let shown = try PNG.decode(png)
        XCTAssertEqual([shown.width, shown.height], [480, 270], "480 wide, the output's aspect", file: file, line: line)
        let diff = PixelCompare.differingPixels(shown, try expectedFrame(pdf: pdf, page: page, width: shown.width, height: shown.height))
        XCTAssertEqual(diff, 0, "the next-slide thumbnail differs from page \(page) in \(diff) pixels", file: file, line: line)
    }

    /// Waits until the service's screen is on `page`, then checks the output pixel for pixel.
    func assertOutputShows(pdf: String, page: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let deadline = MonotonicClock.now() + 20
        do {
            try eventually(
                "the service's screen to reach page \(page) (it is on \((try? snapshot().screen.page).map { "\($0)" } ?? "?"))",
                timeout: 20, interval: 0.05
            ) { try snapshot().screen.page == page }
        } catch {
            return XCTFail("\(error)", file: file, line: line)
        }
        let expected = try expectedFrame(pdf: pdf, page: page)
        var diff = -1
        // The model commits after the frame is shown; a few more checks cover a slow stage.
        // A time-out is reported by the assertion below, with the count.
        try? eventually("the output to show page \(page)", timeout: max(0, deadline - MonotonicClock.now()), interval: 0.1) {
            diff = PixelCompare.differingPixels(service.stage.screenshot(), expected)
            return diff == 0
        }
        XCTAssertEqual(diff, 0, "the output differs from page \(page) in \(diff) pixels", file: file, line: line)
    }
}

/// Helpers the browser tests share.
extension XCTestCase {
    func assertNoHorizontalScroll(_ s: WebSession, _ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let v =
            try s.execute(
                """
                const d = document.documentElement;
                const wide = Array.from(document.querySelectorAll('body *')).filter((e) => e.getBoundingClientRect().right > d.clientWidth + 0.5)
                  .map((e) => e.tagName + (e.id ? '#' + e.id : '') + '.' + e.className);
                return [d.scrollWidth, d.clientWidth, wide.slice(0, 5).join(' ')];
                """) as? [Any] ?? []
        let scroll = v.first as? Int ?? -1, client = v.count > 1 ? v[1] as? Int ?? 0 : 0
        XCTAssertLessThanOrEqual(scroll, client, "\(what) scrolls sideways: scrollWidth \(scroll) > clientWidth \(client); too wide: \(v.last ?? "")", file: file, line: line)
    }

    /// Writes the viewport and the whole page as PNGs under the test output.
    func shoot(_ s: WebSession, _ name: String, width: Int, height: Int) throws {
        let size = width < 600 ? "phone" : "laptop"
        try s.execute("window.scrollTo(0, 0)")
        let a = try TestOutput.write(try s.screenshot(), "\(name)-\(size).png")
        let b = try TestOutput.write(try s.fullPageScreenshot(width: width, height: height), "\(name)-\(size)-full.png")
        print("screenshots: \(a) \(b)")
    }
}
