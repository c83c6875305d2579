import Foundation
import LecternClient
import LecternCore
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// A real service in this process — virtual display, protocol on any free TCP port, the
/// web remote on any free HTTP port — and the browsers the test drives against it.
final class WebHarness {
    static let presenterPass = "presenter-pass-1"
    static let moderatorPass = "moderator-pass-1"
    let service: Service
    let dir: String
    let driver: ChromeDriver?

    init(floor: Config.FloorMode = .open, browsers: Bool = true, tweak: (inout Config) -> Void = { _ in }) throws {
        // Browsers first: a missing chromium fails the test here, loudly, before anything runs.
        driver = browsers ? try ChromeDriver() : nil
        dir = Fixtures.tempDir("web")
        var c = Config.testRoom(dataDir: dir + "/data", room: "Room 4.12", floor: floor,
                                passcode: Self.presenterPass, moderatorPasscode: Self.moderatorPass)
        c.httpPort = 0   // the web remote, on any free port
        tweak(&c)
        var o = Service.Options(config: c)
        o.host = "127.0.0.1"
        service = Service(options: o)
        try service.start()
    }

    deinit {
        driver?.quit()
        service.stop()
    }

    var url: String { "http://127.0.0.1:\(service.httpPort ?? -1)/" }

    /// A browser window on the web remote.
    func browser(width: Int = 1366, height: Int = 768, query: String = "") throws -> WebSession {
        guard let driver else { throw WebDriverError("this harness has no browsers") }
        let s = try driver.session(width: width, height: height)
        try s.open(url + query)
        _ = try s.wait(for: "#login-form")
        try s.poll("the room name from hello") { try s.text("#login-room") == "Room 4.12" }
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

    func connect() throws -> LecternConnection { try LecternConnection(host: "127.0.0.1", port: service.port) }

    /// The room as the service sees it.
    func snapshot() throws -> Snapshot {
        let room = service.room!
        return try room.loop.submit { room.snapshot() }.wait()
    }

    func device(named name: String) throws -> DeviceSnapshot? { try snapshot().devices.first { $0.name == name } }

    /// The frame the pipeline renders for a page of a file, at the output's size or another
    /// (a preview's), to compare screenshots with.
    func expectedFrame(pdf: String, page: Int, width: Int? = nil, height: Int? = nil) throws -> Frame {
        let s = service.stage.compositor.settings
        return try Compositor.renderPage(PDFDocument(path: pdf), page: page,
                                         settings: s.sized(width: width ?? s.width, height: height ?? s.height))
    }

    /// Waits until the page's next-slide thumbnail shows `page`, then checks it pixel for
    /// pixel against the pipeline's render of that page at the thumbnail's size.
    func assertNextSlide(_ b: WebSession, pdf: String, page: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        try b.poll("the next slide: page \(page)") {
            try b.execute("""
                const n = window.Lectern.app.next, img = document.getElementById('next-img');
                return !document.getElementById('upnext').hidden && n.key.endsWith('#' + arguments[0])
                  && n.done === n.key && n.url === img.src && img.complete && img.naturalWidth > 0
                """, [page]) as? Bool == true
        }
        let b64 = try b.executeAsync("""
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
        let deadline = Date().addingTimeInterval(20)
        while try snapshot().screen.page != page {
            guard Date() < deadline else {
                return XCTFail("the service's screen never reached page \(page) (it is on \(try snapshot().screen.page))", file: file, line: line)
            }
            Fixtures.wait(seconds: 0.05)
        }
        let expected = try expectedFrame(pdf: pdf, page: page)
        var diff = PixelCompare.differingPixels(service.stage.screenshot(), expected)
        // The model commits after the frame is shown; a few more polls cover a slow stage.
        while diff != 0 && Date() < deadline {
            Fixtures.wait(seconds: 0.1)
            diff = PixelCompare.differingPixels(service.stage.screenshot(), expected)
        }
        XCTAssertEqual(diff, 0, "the output differs from page \(page) in \(diff) pixels", file: file, line: line)
    }
}

/// Where the screenshots for people go: $LECTERN_TEST_OUTPUT/web, else .build/test-output/web.
enum TestOutput {
    static var directory: String {
        let base: String
        if let env = ProcessInfo.processInfo.environment["LECTERN_TEST_OUTPUT"], !env.isEmpty {
            base = env
        } else {
            // Tests/LecternWebTests/WebHarness.swift → the repository.
            let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            base = repo.appendingPathComponent(".build/test-output").path
        }
        let dir = base + "/web"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static func write(_ png: Data, _ name: String) throws -> String {
        let path = directory + "/" + name
        try png.write(to: URL(fileURLWithPath: path))
        return path
    }
}
