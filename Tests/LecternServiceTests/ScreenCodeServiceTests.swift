import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// `screen_code = true` over real sockets: joining needs the code on the wall, the code of
/// the previous meeting fails, the idle screen's QR code carries it (zbarimg on the
/// screenshot), and the throttle covers codes.
final class ScreenCodeServiceTests: XCTestCase {
    func harness() throws -> ServiceHarness {
        try ServiceHarness(floor: .open, webRemote: true) { c in
            c.passcode = nil
            c.screenCode = true
            c.gracePeriod = 0
        }
    }

    func testJoiningNeedsTheCodeOnTheWallAndThePreviousMeetingsCodeFails() throws {
        let h = try harness()
        let code = try XCTUnwrap(h.service.currentScreenCode)
        XCTAssertEqual(code.count, 6)
        XCTAssertTrue(code.allSatisfy(\.isNumber))
        let eve = try h.connect()
        XCTAssertServerError(.wrongPasscode, try eve.register(name: "Eve", role: .presenter, passcode: ServiceHarness.presenterPass))
        XCTAssertServerError(.wrongPasscode, try eve.register(name: "Eve", role: .presenter, passcode: ""))
        let alice = try h.connect()
        try alice.register(name: "Alice", role: .presenter, passcode: code)
        // The moderator passcode stays fixed.
        let mod = try h.moderator()
        // The meeting ends: everyone leaves; the wall gets a new code.
        alice.close()
        mod.close()
        try eventually("a new code after the meeting") {
            let now = h.service.currentScreenCode
            return now != nil && now != code
        }
        let next = try XCTUnwrap(h.service.currentScreenCode)
        let late = try h.connect()
        XCTAssertServerError(.wrongPasscode, try late.register(name: "Late", role: .presenter, passcode: code))
        let bob = try h.connect()
        try bob.register(name: "Bob", role: .presenter, passcode: next)
    }

    func testWrongCodesAreThrottled() throws {
        let h = try harness()
        let code = try XCTUnwrap(h.service.currentScreenCode)
        let wrong = code == "000000" ? "000001" : "000000"
        let eve = try h.connect()
        for _ in 0..<5 { XCTAssertServerError(.wrongPasscode, try eve.register(name: "Eve", role: .presenter, passcode: wrong)) }
        XCTAssertServerError(.tooManyAttempts, try eve.register(name: "Eve", role: .presenter, passcode: code))
    }

    func testTheIdleScreenShowsTheCodeAndItsQRCodeCarriesItInTheFragment() throws {
        let h = try harness()
        try eventually("the idle screen has the web address") { h.service.httpPort != nil }
        let code = try XCTUnwrap(h.service.currentScreenCode)
        var decoded = ""
        let path = Fixtures.tempDir("code") + "/idle-code.png"
        try eventually("the QR code on the wall decodes to the join URL with the code") {
            try PNG.write(h.service.onScreen, to: path)
            let r = try Fixtures.run("zbarimg", ["--raw", "-q", path])
            decoded = String(decoding: r.out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return decoded.hasSuffix("#code=\(code)")
        }
        // The appliance's own certificate: the landing page's plain address (§28).
        XCTAssertTrue(decoded.hasPrefix("http://"), decoded)
        XCTAssertTrue(decoded.contains(":\(h.service.httpPort!)/#code="), decoded)
        // The same screen without the code differs: the code is drawn, not only encoded.
        var idle = h.service.idleScreen(port: h.port)
        let with = Frame(width: 1920, height: 1080, color: .black)
        idle.draw(into: with)
        idle.code = nil
        let without = Frame(width: 1920, height: 1080, color: .black)
        idle.draw(into: without)
        XCTAssertGreaterThan(PixelCompare.differingPixels(with, without), 2000, "no code drawn on the idle screen")
    }

    /// The idle screen with its code at 16:9, 16:10 and 4:3 with 5 % overscan: nothing
    /// outside the safe area, the QR code decodes to the URL with the code at each size.
    /// Saves .build/test-output/idle-16x9.png and idle-4x3.png.
    func testTheIdleScreenWithItsCodeFitsEachAspectRatioWithOverscan() throws {
        let h = try ServiceHarness(floor: .open, webRemote: true) { c in
            c.passcode = nil
            c.screenCode = true
            c.wifiSSID = "Room;4.12"
            c.wifiPassword = "guest:pass\\word"
        }
        try eventually("the idle screen has the web address") { h.service.httpPort != nil }
        let code = try XCTUnwrap(h.service.currentScreenCode)
        let idle = h.service.idleScreen(port: h.port)
        XCTAssertNotNil(idle.timeOfDay)
        let out = Repository.root + "/.build/test-output"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        for (w, ht, name) in [(1920, 1080, "idle-16x9"), (1920, 1200, "idle-16x10"), (1024, 768, "idle-4x3")] {
            let frame = Frame(width: w, height: ht, color: .black)
            idle.draw(into: frame, overscanPercent: 5)
            XCTAssertEqual(PixelCompare.pixelsInOverscanMargin(frame, overscanPercent: 5, background: idle.background), 0, "\(name): pixels drawn in the overscan margin")
            let path = out + "/\(name).png"
            try PNG.write(frame, to: path)
            let r = try Fixtures.run("zbarimg", ["--raw", "-q", path])
            let symbols = String(decoding: r.out, as: UTF8.self).split(separator: "\n").map(String.init)
            XCTAssertEqual(symbols.count, 2, "\(name): \(symbols)")
            XCTAssertTrue(symbols.contains { $0.hasSuffix("#code=\(code)") }, "\(name): \(symbols)")
            XCTAssertTrue(symbols.contains("WIFI:T:WPA;S:Room\\;4.12;P:guest\\:pass\\\\word;;"), "\(name): \(symbols)")
        }
    }

    func testAFixedPasscodeBesideTheScreenCodeIsAConfigProblem() {
        let r = ConfigFile.parse("screen_code = true\npasscode = \"tulip-harbour\"\nmoderator_passcode = \"granite-lantern\"\n")
        XCTAssertEqual(
            r.problems,
            [
                ConfigProblem(
                    line: 2,
                    "'passcode' is set but so is 'screen_code = true': the code on the wall is the presenter passcode, so remove 'passcode' (or set screen_code = false)")
            ])
        XCTAssertEqual(ConfigFile.parse("screen_code = true\nmoderator_passcode = \"granite-lantern\"\n").problems, [])
    }

    /// Issue 25, finding 5, over TLS as shipped: with an open audience, 12 viewers come and
    /// go while no presenter is in, the room's screen-code check running after each join
    /// (as its tick would): the code on the wall stays, and a presenter joins with it. Once
    /// that presenter leaves, the meeting ended: a new code.
    func testViewersComingAndGoingDontRotateTheCodeOverTLS() throws {
        let h = try ServiceHarness(floor: .open) { c in
            c.tls = true
            c.passcode = nil
            c.screenCode = true
            c.gracePeriod = 0
            c.audience = .open
        }
        let fp = try XCTUnwrap(h.service.tlsIdentity?.fingerprint)
        let connect = { try LecternConnection(host: "127.0.0.1", port: h.port, tls: .pinned(fp)) }
        let room = try XCTUnwrap(h.service.room)
        let code = try XCTUnwrap(h.service.currentScreenCode)
        for i in 0..<12 {
            let v = try connect()
            try v.register(name: "", role: .viewer, key: [UInt8](repeating: UInt8(i), count: 32))
            try room.loop.submit { room.checkScreenCode() }.wait()
            XCTAssertEqual(h.service.currentScreenCode, code, "viewer \(i) joined: the same code")
            v.close()
        }
        try eventually("the viewers are gone") { try room.loop.submit { room.snapshot().audience?.viewers ?? 0 }.wait() == 0 }
        try room.loop.submit { room.checkScreenCode() }.wait()
        XCTAssertEqual(h.service.currentScreenCode, code, "12 viewers came and went: the same code")
        let ana = try connect()
        try ana.register(name: "Ana", role: .presenter, passcode: code)
        ana.close()
        try eventually("a new code after the presenter's meeting") {
            let now = h.service.currentScreenCode
            return now != nil && now != code
        }
    }
}
