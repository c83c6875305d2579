import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

final class AuthOverTCPTests: XCTestCase {
    /// Plain passcodes keep their salt across a restart (the data directory's secret, owner
    /// only), so a key a client kept still proves the passcode afterwards.
    func testAPlainPasscodeKeepsItsSaltAcrossARestart() throws {
        let h = try ServiceHarness()
        let before = try h.connect().hello
        let path = h.dir + "/data/passcode-salt.key"
        var st = stat()
        XCTAssertEqual(stat(path, &st), 0, "the salt secret is kept in the data directory")
        XCTAssertEqual(st.st_mode & 0o777, 0o600, "owner only")
        XCTAssertEqual(st.st_size, 32)
        try h.restart()
        let c = try h.connect()
        XCTAssertEqual(c.hello.presenter, before.presenter, "the presenter salt after a restart")
        XCTAssertEqual(c.hello.moderator, before.moderator, "the moderator salt after a restart")
        XCTAssertNotEqual(c.hello.presenter?.salt, c.hello.moderator?.salt)
        try c.register(name: "Ana", role: .presenter, passcode: ServiceHarness.presenterPass)
    }

    func testWrongPasscodeIsOneClearErrorAndTheConnectionStays() throws {
        let h = try ServiceHarness()
        let c = try h.connect()
        XCTAssertServerError(.wrongPasscode, try c.register(name: "Eve", role: .presenter, passcode: "guess-guess"))
        XCTAssertTrue(c.isOpen)
        try c.register(name: "Eve", role: .presenter, passcode: ServiceHarness.presenterPass)   // a retry with the right one works
        XCTAssertNotEqual(c.deviceID, 0xFF)
        // A presenter passcode does not make a moderator.
        let m = try h.connect()
        XCTAssertServerError(.wrongPasscode, try m.register(name: "Eve2", role: .moderator, passcode: ServiceHarness.presenterPass))
    }

    func testFailuresAreThrottledPerAddress() throws {
        let h = try ServiceHarness()
        let c = try h.connect()
        for _ in 0..<5 {
            XCTAssertServerError(.wrongPasscode, try c.register(name: "Eve", role: .presenter, passcode: "wrong-wrong"))
        }
        // The sixth attempt waits, even with the right passcode, even on a new connection.
        XCTAssertServerError(.tooManyAttempts, try c.register(name: "Eve", role: .presenter, passcode: ServiceHarness.presenterPass))
        let d = try h.connect()
        XCTAssertServerError(.tooManyAttempts, try d.register(name: "Eve", role: .presenter, passcode: ServiceHarness.presenterPass))
        // The moderator role is throttled separately, so a presenter brute force can't lock the moderator out.
        let m = try h.connect()
        try m.register(name: "Mod", role: .moderator, passcode: ServiceHarness.moderatorPass)
    }

    func testAReplayedRegisterFails() throws {
        let h = try ServiceHarness()
        let first = try h.connect()
        let params = try XCTUnwrap(first.hello.presenter)
        let proof = RegisterProof.compute(
            passcode: ServiceHarness.presenterPass, parameters: params, challenge: first.hello.challenge,
            role: .presenter, name: "Alice", resumeToken: nil)
        let captured = Message.register(RegisterRequest(role: .presenter, proof: proof, resumeToken: nil, name: "Alice"))
            .encode(tag: 7, deviceID: 0xFF)
        // The captured bytes work where they were made...
        first.sendRaw(captured)
        guard case .registerOK = try first.reply(tag: 7) else { return XCTFail("the original register failed") }
        // ...and nowhere else: the challenge differs.
        let second = try h.connect()
        XCTAssertNotEqual(second.hello.challenge, first.hello.challenge)
        second.sendRaw(captured)
        XCTAssertServerError(.wrongPasscode, try second.reply(tag: 7))
    }

    func testThe254thPlaceIsAModeratorsAndThe255thDeviceIsRefused() throws {
        // One full client watches; the other 253 devices are plain sockets that register and
        // then read nothing (the service keeps only the newest state for a peer that doesn't
        // read). With full clients, one test thread decoded ~32,000 snapshots of up to 254
        // devices and could fall behind the keep-alive on a loaded machine; the room's rule
        // is the same either way. Silent sockets need a keep-alive longer than the test; all
        // 255 come from one address, more than a room's devices would (64 by default).
        let h = try ServiceHarness {
            $0.keepaliveTimeout = 300
            $0.maxConnectionsPerAddress = 300
        }
        let watcher = try h.presenter("watcher")
        let params = try XCTUnwrap(watcher.hello.presenter)
        let key = PasscodeHash.deriveKey(passcode: ServiceHarness.presenterPass, salt: params.salt, rounds: params.rounds)
        var devices: [RawDevice] = []
        for i in 2...253 { devices.append(try RawDevice(port: h.port, name: "device \(i)", key: key, tls: h.fingerprint)) }
        // Presenters fill 253 places; the 254th is kept for a moderator (§8.1).
        XCTAssertServerError(.roomFull, try h.connect().register(name: "presenter 254", role: .presenter, key: key))
        let modParams = try XCTUnwrap(watcher.hello.moderator)
        let modKey = PasscodeHash.deriveKey(passcode: ServiceHarness.moderatorPass, salt: modParams.salt, rounds: modParams.rounds)
        devices.append(try RawDevice(port: h.port, name: "moderator", key: modKey, role: .moderator, tls: h.fingerprint))
        let ids = [watcher.deviceID] + devices.map(\.id)
        XCTAssertEqual(Set(ids).count, 254)
        XCTAssertEqual(ids.max(), 254)
        XCTAssertEqual(try watcher.waitForState { $0.devices.count == 254 }.devices.count, 254)
        let probe = try h.connect()
        XCTAssertServerError(.roomFull, try probe.register(name: "one too many", role: .presenter, key: key))
        XCTAssertThrowsError(try RawDevice(port: h.port, name: "also too many", key: key, tls: h.fingerprint))
        XCTAssertThrowsError(try RawDevice(port: h.port, name: "a second moderator", key: modKey, role: .moderator, tls: h.fingerprint))
        // One leaves; the next one gets in with the freed id.
        let freed = devices[99].id
        devices[99].close()
        _ = try watcher.waitForState { s in !s.devices.contains { $0.id == freed } }
        let late = try h.connect()
        try late.register(name: "late", role: .presenter, key: key)
        XCTAssertEqual(late.deviceID, freed)
        withExtendedLifetime(devices) {}
    }
}

final class GraceOverTCPTests: XCTestCase {
    func testADroppedHolderResumesWithinTheGracePeriodAndNotAfter() throws {
        // Long enough that the checks made while A is away (a screenshot, a render, a
        // passcode derivation) fit in it on a loaded machine.
        let h = try ServiceHarness(floor: .open) { $0.gracePeriod = 6 }
        let watcher = try h.presenter("Watcher")
        var a = try h.presenter("A")
        _ = try a.requestFloor()
        let pdf = try Fixtures.numberedDeck(count: 4, in: Fixtures.tempDir("grace"))
        try a.present(try a.upload(path: pdf).content, page: 2)
        let token = try XCTUnwrap(a.registration?.resumeToken)
        let id = a.deviceID
        a.close()
        // The content stays on screen while the holder is away.
        let away = try watcher.waitForState { $0.devices.first { $0.id == id }?.connected == false }
        XCTAssertEqual(away.floor.holder, id)
        XCTAssertNotNil(away.floor.graceRemainingMs)
        XCTAssertEqual(away.screen.page, 2)
        XCTAssertEqual(PixelCompare.differingPixels(try PNG.decode(watcher.screenshot()), try h.expectedFrame(pdf: pdf, page: 2)), 0, "pixels differ")

        a = try h.connect()
        let ok = try a.register(name: "A", role: .presenter, passcode: ServiceHarness.presenterPass, resumeToken: token)
        XCTAssertTrue(ok.resumed); XCTAssertTrue(ok.floorRestored)
        XCTAssertEqual(ok.deviceID, id)
        try a.control(.next)   // still the holder, still its deck
        XCTAssertEqual(try watcher.waitForState { $0.screen.page == 3 }.floor.holder, id)

        // Drop again and stay away: after the grace period the screen returns to idle.
        let token2 = ok.resumeToken
        a.close()
        let gone = try watcher.waitForState(timeout: 25) { $0.floor.holder == nil && $0.screen.content == nil }
        XCTAssertEqual(gone.screen.page, 0)
        let idle = try PNG.decode(watcher.screenshot())
        let idleFrame = try h.service.stage.compositor.frame(for: .idle)
        XCTAssertEqual(PixelCompare.differingPixels(idle, idleFrame), 0, "pixels differ")
        let late = try h.connect()
        let lateOK = try late.register(name: "A", role: .presenter, passcode: ServiceHarness.presenterPass, resumeToken: token2)
        XCTAssertFalse(lateOK.floorRestored)
        XCTAssertFalse(lateOK.resumed)
    }
}
