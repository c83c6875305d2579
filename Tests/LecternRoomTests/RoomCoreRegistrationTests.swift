import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// Registration, keep-alive and the request switch, as events → effects.
final class RoomCoreRegistrationTests: XCTestCase {
    typealias H = RoomCoreHarness

    func testHelloCarriesTheChallengeTheRoomAndTheKeepAlive() {
        let h = H(configure: { $0.keepaliveTimeout = 9 })
        let hello = h.open(1)
        XCTAssertEqual(hello.challenge, H.challenge(1))
        XCTAssertEqual(hello.room, "Core Room")
        XCTAssertEqual(hello.timeoutMs, 9000)
        XCTAssertEqual(hello.pingIntervalMs, 2000)
        XCTAssertEqual(hello.presenter, H.presenterKey.parameters)
        XCTAssertEqual(hello.server, "lecternd test")
    }

    func testTheRightProofRegistersAndEveryoneGetsTheState() {
        let h = H()
        let a = h.join(1, name: "Ana")
        let hello = h.open(2)
        let effects = h.send(h.register(2, hello: hello, name: "Ben", role: .presenter), from: 2)
        guard case .registerOK(let ok)? = H.replies(to: 2, effects).first else { return XCTFail("\(effects)") }
        XCTAssertNotEqual(ok.deviceID, a)
        // One state push for both, with both devices in it.
        XCTAssertEqual(H.states(to: 1, effects).count, 1)
        XCTAssertEqual(H.states(to: 2, effects).first?.devices.map(\.name), ["Ana", "Ben"])
        XCTAssertTrue(effects.contains { if case .persist = $0 { return true } else { return false } })
        XCTAssertEqual(H.work(effects).filter { $0 == .registered(2) }.count, 1, "the transport is told once: the places kept for devices are its")
    }

    func testAWrongPasscodeIsRefusedAndGuessingIsThrottled() {
        let h = H()
        var codes: [ErrorCode?] = []
        for i in 0..<7 {
            let id = ConnectionID(10 + i)
            let hello = h.open(id, address: "10.1.1.1")
            codes.append(H.errorCode(to: id, h.send(h.register(id, hello: hello, name: "Eve", role: .presenter, passcode: "guess"), from: id)))
        }
        XCTAssertEqual(codes.prefix(5).map { $0 }, Array(repeating: ErrorCode.wrongPasscode, count: 5))
        XCTAssertEqual(codes.last, .tooManyAttempts, "after five failures the address waits")
        // Another address is not slowed down by this one once the room's budget (5 at once,
        // refilled at 25 a minute: §7.3) has a place again, 2.4 s later.
        h.now += 2.4
        let hello = h.open(50, address: "10.1.1.2")
        XCTAssertEqual(
            H.errorCode(to: 50, h.send(h.register(50, hello: hello, name: "Eve", role: .presenter, passcode: "guess"), from: 50)),
            .wrongPasscode)
    }

    func testRequestsBeforeRegisteringAndWithAWrongDeviceByteAreRefused() {
        let h = H()
        _ = h.open(1)
        XCTAssertEqual(H.errorCode(to: 1, h.send(.stateRequest, from: 1)), .notRegistered)
        let me = h.join(2, name: "Ana")
        XCTAssertEqual(H.errorCode(to: 2, h.send(.stateRequest, from: 2, device: me &+ 1)), .wrongDeviceID)
        guard case .state(let s)? = H.messages(to: 2, h.send(.stateRequest, from: 2, device: me)).first else { return XCTFail() }
        XCTAssertEqual(s.devices.count, 1)
    }

    func testAMalformedStreamIsAnsweredAndClosed() {
        let h = H()
        _ = h.open(1)
        let effects = h.handle(.malformed(1, tag: 3, .frameTooLarge(length: 1 << 30)))
        XCTAssertEqual(H.errorCode(to: 1, effects), .frameTooLarge)
        XCTAssertEqual(effects.last, .close(1))
        XCTAssertTrue(h.send(.ping(nonce: 1), from: 1).isEmpty, "nothing is handled after the close")
    }

    func testUnregisterAnswersClosesAndTheOthersSeeTheDeviceLeave() {
        let h = H()
        h.join(1, name: "Ana")
        let b = h.join(2, name: "Ben")
        let effects = h.send(.unregister, from: 2, device: b)
        XCTAssertEqual(H.replies(to: 2, effects), [.unregisterOK])
        XCTAssertTrue(effects.contains(.close(2)))
        XCTAssertEqual(H.states(to: 1, effects).last?.devices.map(\.name), ["Ana"])
    }

    func testSilenceTimesAPeerOutAndAnUnregisteredOneIsDroppedAfter30s() {
        let h = H()
        h.join(1, name: "Ana")
        _ = h.open(2)
        h.now += 2.1
        let pings = h.handle(.tick)
        XCTAssertTrue(H.messages(to: 1, pings).contains { if case .ping = $0 { return true } else { return false } })
        h.now += 4
        let dropped = h.handle(.tick)
        XCTAssertEqual(H.errorCode(to: 1, dropped), .timedOut)
        XCTAssertTrue(dropped.contains(.close(1)))
        // Connection 2 never registered; it timed out on silence as well, at the same time.
        XCTAssertTrue(dropped.contains(.close(2)))

        let h2 = H(configure: { $0.keepaliveTimeout = 120 })
        _ = h2.open(1)
        for _ in 0..<61 {
            h2.now += 0.5
            h2.send(.ping(nonce: 1), from: 1)   // alive, but never registers
            h2.handle(.tick)
        }
        XCTAssertEqual(H.errorCode(to: 1, h2.log), .timedOut)
        XCTAssertTrue(h2.log.contains(.close(1)))
    }

    func testAPeerThatDoesNotReadGetsOnlyTheNewestStateWhenItReadsAgain() {
        let h = H(floor: .open)
        let a = h.join(1, name: "Ana")
        h.join(2, name: "Ben")
        h.handle(.writable(2, false))
        h.send(.floorRequest, from: 1, device: a)
        let r2 = h.send(.floorRelease, from: 1, device: a)
        XCTAssertTrue(H.states(to: 2, r2).isEmpty)
        let again = h.handle(.writable(2, true))
        let states = H.states(to: 2, again)
        XCTAssertEqual(states.count, 1, "one state, the newest")
        XCTAssertNil(states.first?.floor.holder)
    }
}
