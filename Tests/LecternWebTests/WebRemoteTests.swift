import Foundation
import Glibc
import LecternClient
import LecternCore
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// The web remote (issue 7): the HTTP server and its WebSocket, then the web app in a real
/// headless Chromium (Debian's chromium and chromium-driver) against a real service.
final class WebRemoteTests: XCTestCase {

    // MARK: HTTP and WebSocket, without a browser

    func testServesTheAppsFilesAndNothingElse() throws {
        let h = try ServiceHarness.web(browsers: false)
        let base = h.url
        let index = try HTTP.send("GET", base)
        XCTAssertEqual(index.status, 200)
        XCTAssertEqual(index.headers["content-type"], "text/html; charset=utf-8")
        XCTAssertTrue(index.text.contains("<script src=\"/lectern.js\""), "index.html loads the one script")
        XCTAssertFalse(index.text.contains("http://") && index.text.contains("<script src=\"http"), "nothing from the internet")
        XCTAssertEqual(index.headers["cache-control"], "no-cache")
        XCTAssertNotNil(index.headers["etag"])
        XCTAssertTrue(index.headers["content-security-policy"]?.contains("default-src 'none'") == true)
        XCTAssertEqual(index.headers["x-content-type-options"], "nosniff")

        let js = try HTTP.send("GET", base + "lectern.js")
        XCTAssertEqual(js.status, 200)
        XCTAssertEqual(js.headers["content-type"], "text/javascript; charset=utf-8")
        XCTAssertTrue(js.text.contains("lectern-register-v1"))
        let css = try HTTP.send("GET", base + "lectern.css")
        XCTAssertEqual(css.status, 200)
        XCTAssertEqual(css.headers["content-type"], "text/css; charset=utf-8")
        XCTAssertEqual(try HTTP.send("GET", base + "index.html?x=1").text, index.text)

        // Revalidation: the same ETag gets 304 and no body.
        let again = try HTTP.send("GET", base + "lectern.js", headers: ["If-None-Match": js.headers["etag"] ?? ""])
        XCTAssertEqual(again.status, 304)
        XCTAssertEqual(again.body.count, 0)
        let head = try HTTP.send("HEAD", base + "lectern.css")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.headers["content-length"], String(css.body.count))
        XCTAssertEqual(head.body.count, 0)

        XCTAssertEqual(try HTTP.send("GET", base + "nothing-here.js").status, 404)
        XCTAssertEqual(try HTTP.send("GET", base + "../Package.swift").status, 404)
        XCTAssertEqual(try HTTP.send("GET", base + "Web/index.html").status, 404)
        let post = try HTTP.send("POST", base, body: Data("x".utf8))
        XCTAssertEqual(post.status, 405)
        XCTAssertEqual(post.headers["allow"], "GET, HEAD")
        XCTAssertEqual(try HTTP.send("GET", base + "ws").status, 426, "/ws without an upgrade")
    }

    /// The files come from the build's bundle here; an installed lecternd reads
    /// /usr/share/lectern/web (what the .deb installs); none at all gives a page that says so.
    func testWhereTheFilesComeFrom() throws {
        let source = Repository.path("Sources/LecternService/Web")
        let fromSource = WebAssets.load(directory: source)
        XCTAssertTrue(fromSource.isComplete)
        XCTAssertEqual(Set(fromSource.files.keys), ["/index.html", "/lectern.css", "/lectern.js"])
        XCTAssertEqual(fromSource.files["/lectern.js"]?.contentType, "text/javascript; charset=utf-8")
        XCTAssertTrue(WebAssets.candidates().contains(WebAssets.installedDirectory))
        XCTAssertEqual(WebAssets.installedDirectory, "/usr/share/lectern/web")
        let bundled = try XCTUnwrap(WebAssets.bundledDirectory(), "the resource bundle of this build")
        XCTAssertEqual(WebAssets.load(directory: bundled).files["/lectern.js"]?.body, fromSource.files["/lectern.js"]?.body)
        XCTAssertFalse(WebAssets.load(directory: "/nonexistent/lectern-web").isComplete)
    }

    func testTheConfigTurnsItOff() throws {
        let h = try ServiceHarness.web(browsers: false) { $0.httpPort = nil }
        XCTAssertNil(h.service.httpPort)
        // The protocol still works over TCP.
        let c = try h.connect()
        try c.register(name: "cli", role: .presenter, passcode: ServiceHarness.presenterPass)
    }

    /// A taken port doesn't stop the service (the projector and the protocol work on); the
    /// web remote listens once the port is free.
    func testATakenPortIsTriedAgainUntilItIsFree() throws {
        let blocker = try Listener()
        let h = try ServiceHarness.web(browsers: false) { $0.httpPort = blocker.port }
        XCTAssertNil(h.service.httpPort, "not listening while the port is taken")
        let c = try h.connect()
        try c.register(name: "cli", role: .presenter, passcode: ServiceHarness.presenterPass)
        blocker.close()
        try eventually("the web remote on its port", timeout: 3 * Double(Service.webRemoteRetrySeconds)) { h.service.httpPort == blocker.port }
        XCTAssertEqual(try HTTP.send("GET", h.url).status, 200)
    }

    func testTheHttpPortKey() throws {
        let pass = "passcode = \"tulip-harbour\"\nmoderator_passcode = \"granite-lantern\"\n"
        XCTAssertEqual(ConfigFile.parse(pass).config.httpPort, 8080, "the default")
        XCTAssertEqual(ConfigFile.parse(pass + "http_port = 8123\n").config.httpPort, 8123)
        let off = ConfigFile.parse(pass + "http_port = 0\n")
        XCTAssertEqual(off.problems, [])
        XCTAssertNil(off.config.httpPort, "0: no web remote")
        XCTAssertEqual(ConfigFile.parse(pass + "port = 9000\nhttp_port = 9000\n").problems.map(\.description),
                       ["line 4: 'http_port' is the same as 'port' (9000): the web remote needs a port of its own (0: no web remote)"])
        XCTAssertEqual(ConfigFile.parse(pass + "http_port = 80\n").warnings.map(\.description),
                       ["line 3: 'http_port' 80 is below 1024: binding it needs CAP_NET_BIND_SERVICE, which the shipped unit does not grant"])
        XCTAssertEqual(ConfigFile.parse(pass + "http_port = 70000\n").problems.map(\.description),
                       ["line 3: 'http_port' must be from 0 to 65535, not 70000"])
        XCTAssertEqual(ConfigFile.parse(pass + "http_prot = 8080\n").problems.map(\.description),
                       ["line 3: unknown key 'http_prot' (did you mean 'http_port'?)"])
    }

    func testTheWebSocketCarriesProtocolFramesInAnySlicing() throws {
        let h = try ServiceHarness.web(browsers: false)
        let ws = try WebSocketProbe(port: h.service.httpPort!)
        guard case .hello(let hello)? = try ws.nextMessage() else { return XCTFail("no hello first") }
        XCTAssertEqual(hello.room, "Room 4.12")

        // register split over two WebSocket messages; state-request and a ping in one.
        let proof = RegisterProof.compute(passcode: ServiceHarness.presenterPass, parameters: hello.presenter!,
                                          challenge: hello.challenge, role: .presenter, name: "probe", resumeToken: nil)
        let register = Message.register(RegisterRequest(role: .presenter, proof: proof, resumeToken: nil, name: "probe"))
            .encode(tag: 1, deviceID: 0xFF)
        ws.sendBinary(Array(register[..<5]))
        ws.sendBinary(Array(register[5...]))
        guard case .registerOK(let ok)? = try ws.nextMessage() else { return XCTFail("no register-ok") }
        XCTAssertEqual(ok.deviceID, 1)
        ws.sendBinary(Message.stateRequest.encode(tag: 2, deviceID: 1) + Message.ping(nonce: 77).encode(tag: 3, deviceID: 1))
        var sawState = false, sawPong = false
        while !(sawState && sawPong) {
            guard let (m, tag) = try ws.nextFrame() else { return XCTFail("closed") }
            if case .state(let s) = m, tag == 2 { sawState = true; XCTAssertEqual(s.devices.map(\.name), ["probe"]) }
            if case .pong(77) = m, tag == 3 { sawPong = true }
        }
        XCTAssertEqual(try h.device(named: "probe")?.connected, true, "the room sees the browser's device")

        // WebSocket ping → pong with the same data.
        ws.sendFrame(opcode: 0x9, payload: Array("are you there".utf8))
        let pong = try ws.nextControl(opcode: 0xA)
        XCTAssertEqual(pong, Array("are you there".utf8))

        // Text is not the protocol: closed with 1003.
        ws.sendFrame(opcode: 0x1, payload: Array("hello?".utf8))
        let close = try ws.nextControl(opcode: 0x8)
        XCTAssertEqual(close.prefix(2).map { $0 }, [0x03, 0xEB], "close code 1003")
        try eventually("the device to leave", timeout: 20) { try h.device(named: "probe") == nil }
    }

    func testAFatalProtocolErrorReachesTheBrowserBeforeTheClose() throws {
        let h = try ServiceHarness.web(browsers: false)
        let ws = try WebSocketProbe(port: h.service.httpPort!)
        _ = try ws.nextMessage()
        // A header claiming 4 GiB: frameTooLarge, then the connection closes.
        ws.sendBinary([0x30, 0xFF, 0x00, 0x09, 0xFF, 0xFF, 0xFF, 0xFF])
        guard case .error(let e)? = try ws.nextMessage() else { return XCTFail("no error") }
        XCTAssertEqual(e.code, .frameTooLarge)
        XCTAssertTrue(e.closesConnection)
        XCTAssertEqual(try ws.nextControl(opcode: 0x8).prefix(2).map { $0 }, [0x03, 0xE8], "a normal close after it")
    }

    // MARK: in Chromium

    /// The JavaScript SHA-256, HMAC and PBKDF2 (what a phone on plain http:// uses, where
    /// WebCrypto is missing) against the worked example of docs/protocol.md §16 and Swift.
    func testTheJavaScriptCryptoMatchesTheProtocolsWorkedExample() throws {
        let h = try ServiceHarness.web()
        let b = try h.browser()
        let result = try b.executeAsync("""
            const done = arguments[arguments.length - 1];
            const L = window.Lectern;
            (async () => {
              const key = await L.pbkdf2Sha256(L.utf8('correct horse'), L.fromHex('101112131415161718191a1b1c1d1e1f'), 210000);
              const mac = L.registerMAC(L.fromHex('a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf'), 1, L.utf8("Ana's laptop"), null);
              const big = new Uint8Array(3 * 1024 * 1024 + 17);
              for (let i = 0; i < big.length; i++) big[i] = (i * 31 + (i >> 8)) & 255;
              const viaSubtle = await L.deriveKey('correct horse', L.fromHex('101112131415161718191a1b1c1d1e1f'), 210000);
              done([L.hex(key), L.hex(mac), L.hex(L.hmacSha256(key, mac)), L.hex(L.sha256(big)),
                    L.hex(L.sha256(new Uint8Array(0))), L.hex(viaSubtle), isSecureContext]);
            })().catch((e) => done(['error', String(e)]));
            """) as? [Any] ?? []
        XCTAssertEqual(result.count, 7, "\(result)")
        guard result.count == 7 else { return }
        XCTAssertEqual(result[0] as? String, "0cd6eee03b2dc4eea4f74e2c35f6a0bfbc49887e644c49af404c12e383327f11")
        XCTAssertEqual(result[1] as? String, "6c65637465726e2d72656769737465722d7631a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf01000c416e61277320"
                       + "6c6170746f7000")
        XCTAssertEqual(result[2] as? String, "3d94cb65671ce746ac74ea74c1dd03d27b62e2d53a711dc78c2b2a0840c03233")
        var big = [UInt8](repeating: 0, count: 3 * 1024 * 1024 + 17)
        for i in 0..<big.count { big[i] = UInt8(truncatingIfNeeded: i &* 31 &+ (i >> 8)) }
        XCTAssertEqual(result[3] as? String, ContentHasher.id(of: big).hex)
        XCTAssertEqual(result[4] as? String, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(result[5] as? String, result[0] as? String, "WebCrypto and the JavaScript PBKDF2 agree")
    }

    /// Log in, upload a PDF, present it, press next (a click and keys): the service's output
    /// shows the pages, pixel for pixel.
    func testAPresenterUploadsPresentsAndTurnsPages() throws {
        let h = try ServiceHarness.web(floor: .open)
        let pdf = try Fixtures.numberedDeck(count: 3, in: h.dir, name: "quarterly review.pdf")
        let b = try h.browser(width: 1366, height: 768)
        try shoot(b, "login", width: 1366, height: 768)
        try h.joinAndWait(b, name: "Ana's laptop")
        // The live picture is the output scaled to the box (in device pixels), not 1920 wide.
        try b.poll("the preview of the idle screen, at the box's size") {
            try b.execute("""
                const i = document.getElementById('preview-img'), w = window.Lectern.app.previewWidth;
                return !i.hidden && i.complete && w > 0 && w < 1920 && Math.abs(i.naturalWidth - w) <= 2
                  && Math.abs(i.naturalWidth / i.naturalHeight - 16 / 9) < 0.01
                """) as? Bool == true
        }

        try b.click("#floor-request")
        try b.poll("the floor") { try b.text("#floor-status") == "You have the floor." }
        try b.type(try XCTUnwrap(b.find("#file-input")), pdf)
        let present = try b.wait(for: "#file-list button[data-action=present]", timeout: 30)
        XCTAssertTrue(try b.text("#file-list").contains("quarterly review.pdf"))
        XCTAssertTrue(try b.text("#file-list").contains("3 pages"))
        XCTAssertEqual(try b.execute("return document.getElementById('upload-bar').value") as? Double, 1)
        try b.click(present)
        try h.assertOutputShows(pdf: pdf, page: 1)
        try b.poll("page 1 in the page") { try b.text("#page-label") == "1 / 3" }
        XCTAssertEqual(try b.text("#next-label"), "Next: page 2")
        // The next slide as the output will show it, under the live picture.
        try h.assertNextSlide(b, pdf: pdf, page: 2)
        XCTAssertEqual(try b.text("#next-page"), "Page 2 of 3")

        // Someone else in the room sees the screen, not what comes next.
        let viewer = try h.browser(width: 360, height: 740)
        try h.joinAndWait(viewer, name: "Eve's phone")
        try viewer.poll("the viewer's preview request answered") {
            try viewer.execute("const n = window.Lectern.app.next; return n.key !== '' && n.done === n.key") as? Bool == true
        }
        XCTAssertFalse(try viewer.displayed(XCTUnwrap(viewer.find("#upnext"))), "a viewer sees the next slide")
        XCTAssertEqual(try viewer.text("#next-label"), "Next: page 2")
        try viewer.close()

        try b.click("#next")
        try h.assertOutputShows(pdf: pdf, page: 2)
        try b.poll("page 2 in the page") { try b.text("#page-label") == "2 / 3" }
        try h.assertNextSlide(b, pdf: pdf, page: 3)
        try shoot(b, "presenter-next", width: 1366, height: 768)

        // The keys a clicker sends.
        try b.execute("document.activeElement && document.activeElement.blur()")
        try b.press([WebSession.arrowLeft])
        try h.assertOutputShows(pdf: pdf, page: 1)
        try b.press([WebSession.pageDown])
        try h.assertOutputShows(pdf: pdf, page: 2)
        try b.poll("page 2 in the page") { try b.text("#page-label") == "2 / 3" }

        // The preview is the output's frame, refreshed.
        try b.poll("the preview of page 2") {
            try b.execute("return window.Lectern.app.previewURL === document.getElementById('preview-img').src") as? Bool == true
        }
        try b.press(["b"])
        try b.poll("blank") { try h.snapshot().screen.blank == .black }
        try b.poll("the badge") { try b.text("#blank-badge") == "Blanked black" }
        try b.press(["b"])
        try b.poll("unblank") { try h.snapshot().screen.blank == .none }
        try h.assertOutputShows(pdf: pdf, page: 2)

        // Jump to a page.
        let goto = try b.wait(for: "#goto-page")
        try b.type(goto, "3")
        try b.click("#goto-form button")
        try h.assertOutputShows(pdf: pdf, page: 3)
        try b.poll("no next slide after the last") { try b.execute("return document.getElementById('upnext').hidden") as? Bool == true }
        XCTAssertEqual(try b.text("#next-label"), "Last page")
        try b.poll("the preview to settle") {
            try b.execute("return window.Lectern.app.previewURL === document.getElementById('preview-img').src && !window.Lectern.app.previewBusy") as? Bool == true
        }
        try shoot(b, "presenter", width: 1366, height: 768)
    }

    /// Moderated room: the presenter asks, the moderator sees the queue and grants, the
    /// presenter's page says it has the floor. The presenter's page uses the JavaScript
    /// PBKDF2 (as a phone on plain http:// does).
    func testAModeratorPageGrantsTheFloorToAPresenterPage() throws {
        let h = try ServiceHarness.web(floor: .moderated)
        let mod = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(mod, name: "Chair", role: .moderator)
        XCTAssertTrue(try mod.displayed(XCTUnwrap(mod.find("#mod-card"))))

        let p = try h.browser(width: 360, height: 740, query: "?crypto=js")
        try h.joinAndWait(p, name: "Ben's phone")
        XCTAssertEqual(try p.text("#floor-request"), "Ask for the floor")
        try p.click("#floor-request")
        try p.poll("the queue position") { try p.text("#floor-status") == "You are number 1 in the queue." }

        let ben = try XCTUnwrap(h.device(named: "Ben's phone"))
        try mod.poll("Ben in the moderator's queue") { try mod.text("#queue-list").contains("Ben's phone") }
        try mod.poll("both in the list of people") {
            let t = try mod.text("#device-list")
            return t.contains("Chair (you)") && t.contains("Ben's phone") && t.contains("queued #1")
        }
        try shoot(mod, "moderator", width: 1366, height: 768)
        try mod.click("#queue-list button[data-action=grant][data-device='\(ben.id)']")
        try p.poll("the presenter's page to show the floor") { try p.text("#floor-status") == "You have the floor." }
        XCTAssertEqual(try h.snapshot().floor.holder, ben.id)
        try p.poll("the toast") { try p.execute("return document.getElementById('toast').textContent") as? String == "Chair gave you the floor." }
        try mod.poll("the queue to empty") { try mod.text("#queue-empty") == "Nobody is waiting." }
        try mod.poll("Ben holds the floor in the list") { try mod.text("#device-list").contains("has the floor") }

        try shoot(p, "presenter-floor", width: 360, height: 740)

        // Withdraw.
        try mod.click("#device-list button[data-action=withdraw][data-device='\(ben.id)']")
        try p.poll("the floor gone") { try p.text("#floor-status") == "Nobody has the floor." }
        XCTAssertNil(try h.snapshot().floor.holder)
        try p.poll("the toast") { try p.execute("return document.getElementById('toast').textContent") as? String == "Chair took the floor from you." }

        // Reject: Ben asks again, the moderator turns him down from the queue.
        try p.click("#floor-request")
        try mod.poll("Ben queued again") { try mod.text("#queue-list").contains("Ben's phone") }
        try mod.click("#queue-list button[data-action=reject][data-device='\(ben.id)']")
        try p.poll("the rejection in words") {
            try p.execute("return document.getElementById('toast').textContent") as? String == "Chair turned down your request for the floor."
        }
        XCTAssertEqual(try h.snapshot().floor.queue, [])
        try mod.poll("the queue to empty") { try mod.text("#queue-empty") == "Nobody is waiting." }

        // The moderator blanks the screen from the page, without the floor, and unblanks it.
        try mod.click("#blank-black")
        try mod.poll("blank black") { try h.snapshot().screen.blank == .black }
        XCTAssertTrue(h.service.stage.screenshot().isUniform(PixelRect(x: 0, y: 0, width: 1920, height: 1080), .black))
        try mod.poll("the button pressed") { try mod.execute("return document.getElementById('blank-black').getAttribute('aria-pressed')") as? String == "true" }
        try mod.click("#blank-black")
        try mod.poll("unblanked") { try h.snapshot().screen.blank == .none }

        // Do-not-disturb from the moderator's switch: the presenter sees it, and a request
        // is refused in words.
        try mod.click("label.switch")
        try mod.poll("dnd on") { try h.snapshot().floor.doNotDisturb }
        try p.poll("the presenter sees it") { try p.displayed(XCTUnwrap(p.find("#dnd-note"))) }
        try p.click("#floor-request")
        try p.poll("doNotDisturb") { try p.execute("return document.getElementById('toast').textContent") as? String == LecternError.doNotDisturb.message }
        try shoot(p, "presenter-dnd", width: 360, height: 740)

        // Remove (two taps: the first asks "Sure?"): the presenter's page says so, in words.
        try mod.click("#device-list button[data-action=kick][data-device='\(ben.id)']")
        try mod.poll("the confirmation") { try mod.text("#device-list button[data-action=kick][data-device='\(ben.id)']") == "Sure? Remove" }
        XCTAssertNotNil(try h.device(named: "Ben's phone"), "one tap removes nobody")
        try mod.click("#device-list button[data-action=kick][data-device='\(ben.id)']")
        try p.poll("the kicked message") { try p.text("#login-error") == LecternError.kicked.message }
        XCTAssertNil(try h.device(named: "Ben's phone"))
        XCTAssertTrue(try p.displayed(XCTUnwrap(p.find("#login-form"))))
    }

    /// A real clip from the browser: uploaded with the progress bar, played on the output,
    /// the position bar moving, pause, seek by the bar, resume, stop. Then a deck turned by
    /// swiping the picture, and the floor released.
    func testClipsSwipeAndReleaseFromTheBrowser() throws {
        let h = try ServiceHarness.web(floor: .open)
        // Long enough to be still playing at every step below on a slow machine (it is stopped
        // by hand at the end).
        let clip = try Fixtures.clip(in: h.dir, color: "red", seconds: 30, name: "intro.mp4")
        let pdf = try Fixtures.numberedDeck(count: 3, in: h.dir)
        let b = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(b, name: "Cleo")
        try b.click("#floor-request")
        try b.poll("the floor") { try b.text("#floor-status") == "You have the floor." }

        try b.type(try XCTUnwrap(b.find("#file-input")), clip)
        let play = try b.wait(for: "#file-list button[data-action=play]", timeout: 30)
        XCTAssertEqual(try b.execute("return document.getElementById('upload-bar').value") as? Double, 1)
        XCTAssertTrue(try b.displayed(XCTUnwrap(b.find("#clip-card"))))
        try b.click(play)
        try b.poll("the clip playing on the service") { try h.snapshot().screen.clip?.state == .playing }
        // On the output: the red clip in the 4:3 area, black bars beside it.
        try eventually("red on the output", timeout: 20) {
            let f = h.service.stage.screenshot(), c = f.pixel(x: 960, y: 540)
            return c.r > 200 && c.g < 70 && c.b < 70 && f.pixel(x: 100, y: 540) == .black
        }
        // The position bar moves with the clip and knows its length.
        try b.poll("the position bar moving") {
            try b.execute("const r = document.getElementById('clip-position'); return Number(r.max) === 30000 && Number(r.value) > 300") as? Bool == true
        }
        XCTAssertEqual(try b.text("#clip-state"), "Playing")

        try b.click("#clip-pause")
        try b.poll("paused on the service") { try h.snapshot().screen.clip?.state == .paused }
        try b.poll("paused in the page") { try b.text("#clip-state") == "Paused" }

        // Seek by the bar: what a finger lifting off the slider does.
        try b.execute("const r = document.getElementById('clip-position'); r.value = '4000'; r.dispatchEvent(new Event('change'))")
        try b.poll("the service at 4 s") { (try h.snapshot().screen.clip?.positionMs ?? 0) >= 3900 }
        XCTAssertEqual(try b.execute("return document.getElementById('clip-time').textContent") as? String, "0:04 / 0:30")

        try b.click("#clip-resume")
        try b.poll("playing again") { try h.snapshot().screen.clip?.state == .playing }
        try b.click("#clip-stop")
        try b.poll("the clip gone") { try h.snapshot().screen.clip == nil }
        try b.poll("the page says so") { try b.text("#clip-state") == "No clip on screen" }

        // Swipe: a finger moving left on the picture is next, right is previous.
        try b.type(try XCTUnwrap(b.find("#file-input")), pdf)
        try b.click("#file-list button[data-action=present]", timeout: 30)
        try h.assertOutputShows(pdf: pdf, page: 1)
        func swipe(_ dx: Double) throws {
            try b.execute("""
                const el = document.getElementById('preview'), r = el.getBoundingClientRect();
                const x = r.left + r.width / 2, y = r.top + r.height / 2;
                const t = (cx) => new Touch({ identifier: 1, target: el, clientX: cx, clientY: y });
                el.dispatchEvent(new TouchEvent('touchstart', { touches: [t(x)], changedTouches: [t(x)], bubbles: true }));
                el.dispatchEvent(new TouchEvent('touchend', { touches: [], changedTouches: [t(x + arguments[0])], bubbles: true }));
                """, [dx])
        }
        try swipe(-150)
        try h.assertOutputShows(pdf: pdf, page: 2)
        try swipe(150)
        try h.assertOutputShows(pdf: pdf, page: 1)
        try swipe(-20)   // a small movement is a tap, not a turn
        // A blank sent after it over the same WebSocket: once it is on, a turn from the
        // tap would have been carried out before it.
        try b.click("#blank-black")
        try b.poll("blank") { try h.snapshot().screen.blank == .black }
        XCTAssertEqual(try h.snapshot().screen.page, 1, "a 20-px movement turned the page")
        try b.click("#blank-black")
        try b.poll("unblank") { try h.snapshot().screen.blank == .none }
        try swipe(-150)
        try h.assertOutputShows(pdf: pdf, page: 2)

        // Release the floor.
        try b.click("#floor-release")
        try b.poll("released") { try h.snapshot().floor.holder == nil }
        try b.poll("the page says so") { try b.text("#floor-status") == "Nobody has the floor." }
    }

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
        let h = try ServiceHarness.web(floor: .open) { $0.maxUploadMB = 1; $0.maxClients = 2 }
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
        try b.execute("window.Lectern.app.files.push({id: '\(String(repeating: "ab", count: 32))', name: 'intro.mp4', kind: 'clip', pages: 0, durationMs: 61000}); window.Lectern.render();")
        _ = try b.wait(for: "#clip-card")
        try b.click("#file-list button[data-action=play]")
        let taken = LecternError.floorTaken(holder: other.deviceID).message
        try b.poll("floorTaken for play") { try toast() == taken }
        try b.execute("document.getElementById('toast').textContent = ''")
        try b.click("#clip-pause")
        try b.poll("floorTaken for pause") { try toast() == taken }
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

    /// 360 px wide: nothing scrolls sideways, on the form, the presenter's and the
    /// moderator's page, with long names. Screenshots at phone and laptop size for people.
    func testThePhoneLayoutHasNoHorizontalScroll() throws {
        let h = try ServiceHarness.web(floor: .moderated)
        let pdf = try Fixtures.numberedDeck(count: 12, in: h.dir, name: "A rather long file name for the quarterly planning review 2025.pdf")
        let phone = try h.browser(width: 360, height: 740)
        XCTAssertEqual(try phone.execute("return window.innerWidth") as? Int, 360)
        try assertNoHorizontalScroll(phone, "the join form")
        try shoot(phone, "login", width: 360, height: 740)

        try h.joinAndWait(phone, name: "Maximilian's very long device name (iPhone)", role: .moderator)
        let presenter = try h.connect()
        try presenter.register(name: "Ana", role: .presenter, passcode: ServiceHarness.presenterPass)
        _ = try presenter.requestFloor()
        try phone.type(try XCTUnwrap(phone.find("#file-input")), pdf)
        try phone.click("#file-list button[data-action=present]", timeout: 30)
        try h.assertOutputShows(pdf: pdf, page: 1)
        try phone.click("#next")
        try h.assertOutputShows(pdf: pdf, page: 2)
        try phone.poll("the queue") { try phone.text("#queue-list").contains("Ana") }
        try h.assertNextSlide(phone, pdf: pdf, page: 3)
        try phone.poll("the preview to settle") {
            try phone.execute("return window.Lectern.app.previewURL === document.getElementById('preview-img').src && !window.Lectern.app.previewBusy") as? Bool == true
        }
        try assertNoHorizontalScroll(phone, "the moderator's page")
        try shoot(phone, "moderator-presenting", width: 360, height: 740)

        // Touch targets: every button at least 44 px tall.
        let small = try phone.execute("""
            return Array.from(document.querySelectorAll('button')).filter((b) => b.offsetParent !== null)
              .filter((b) => b.getBoundingClientRect().height < 44).map((b) => b.id || b.textContent);
            """) as? [String] ?? ["?"]
        XCTAssertEqual(small, [], "buttons smaller than 44 px")

        let laptop = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(laptop, name: "Ben", role: .presenter)
        try assertNoHorizontalScroll(laptop, "the presenter's page on a laptop")
        try laptop.poll("the preview") {
            try laptop.execute("return window.Lectern.app.previewURL === document.getElementById('preview-img').src && !window.Lectern.app.previewBusy") as? Bool == true
        }
        try shoot(laptop, "presenter-watching", width: 1366, height: 768)
        try laptop.setViewport(width: 360, height: 740)
        try assertNoHorizontalScroll(laptop, "the presenter's page at 360 px")
        try shoot(laptop, "presenter-watching", width: 360, height: 740)
    }

    // MARK: helpers

    func assertNoHorizontalScroll(_ s: WebSession, _ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let v = try s.execute("""
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

/// A WebSocket client written by hand over a plain socket (RFC 6455): for checking the
/// server's side of the transport without a browser.
final class WebSocketProbe {
    let socket: RawSocket
    private var buffer: [UInt8] = []
    private var decoder = FrameDecoder()

    init(port: Int) throws {
        socket = try RawSocket(port: port)
        socket.send(Array(("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8))
        while !String(decoding: buffer, as: UTF8.self).contains("\r\n\r\n") { try fill() }
        let text = String(decoding: buffer, as: UTF8.self)
        let end = text.range(of: "\r\n\r\n")!
        let headLength = text[..<end.upperBound].utf8.count
        guard text.hasPrefix("HTTP/1.1 101"), text.contains("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") else {
            throw WebDriverError("no WebSocket upgrade: \(text)")
        }
        buffer.removeFirst(headLength)
    }

    private func fill(timeout: Double = 10) throws {
        guard let bytes = socket.receive(timeout: timeout) else { throw WebDriverError("nothing from the server in \(timeout) s") }
        guard !bytes.isEmpty else { throw WebDriverError("the server closed the connection") }
        buffer += bytes
    }

    /// Client frames are masked (RFC 6455 §5.3).
    func sendFrame(opcode: UInt8, payload: [UInt8], fin: Bool = true) {
        var f: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        if payload.count < 126 { f.append(0x80 | UInt8(payload.count)) } else if payload.count <= 0xFFFF {
            f += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            f.append(0x80 | 127)
            for i in (0..<8).reversed() { f.append(UInt8((payload.count >> (8 * i)) & 0xFF)) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        f += mask
        f += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        socket.send(f)
    }

    func sendBinary(_ bytes: [UInt8]) { sendFrame(opcode: 0x2, payload: bytes) }

    /// The next WebSocket frame from the server: (opcode, payload).
    func readFrame() throws -> (UInt8, [UInt8]) {
        while true {
            if buffer.count >= 2 {
                let opcode = buffer[0] & 0x0F
                var length = Int(buffer[1] & 0x7F), at = 2
                if length == 126, buffer.count >= 4 { length = Int(buffer[2]) << 8 | Int(buffer[3]); at = 4 }
                else if length == 127, buffer.count >= 10 { length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }; at = 10 }
                else if length >= 126 { try fill(); continue }
                if buffer.count >= at + length {
                    let payload = Array(buffer[at..<at + length])
                    buffer.removeFirst(at + length)
                    return (opcode, payload)
                }
            }
            try fill()
        }
    }

    /// The next protocol frame carried in binary messages, decoded; nil if the server closed.
    func nextFrame() throws -> (Message, UInt16)? {
        while true {
            if let frame = try decoder.next() { return (try Message.decode(frame, sentBy: .server), frame.header.tag) }
            let (opcode, payload) = try readFrame()
            if opcode == 0x8 { return nil }
            if opcode == 0x2 || opcode == 0x0 { decoder.feed(payload) }
        }
    }

    func nextMessage() throws -> Message? { try nextFrame()?.0 }

    /// Skips protocol traffic (the server's pings) until a control frame of `opcode`.
    func nextControl(opcode wanted: UInt8) throws -> [UInt8] {
        while true {
            let (opcode, payload) = try readFrame()
            if opcode == wanted { return payload }
        }
    }
}

/// A listening TCP socket on a free port of 127.0.0.1 that accepts nobody: a port taken.
final class Listener {
    private var fd: Int32
    let port: Int

    init() throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = self.fd
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && listen(fd, 1) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard ok else { throw WebDriverError("listen: \(String(cString: strerror(errno)))") }
        port = Int(UInt16(bigEndian: addr.sin_port))
    }

    func close() {
        if fd >= 0 { Glibc.close(fd); fd = -1 }
    }

    deinit { close() }
}
