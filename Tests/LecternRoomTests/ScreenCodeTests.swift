import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// The code on the wall as a pure state machine: six digits, a new one when a meeting
/// ends and when its time is up, never the same twice in a row.
final class ScreenCodeTests: XCTestCase {
    /// A scripted random source.
    final class Script {
        var values: [UInt32]
        init(_ v: [UInt32]) { values = v }
        var after: UInt32 = 7
        /// Once the script is used up: 7, 8, 9, … (a draw never loops on one value).
        func next() -> UInt32 {
            if !values.isEmpty { return values.removeFirst() }
            after += 1
            return after - 1
        }
    }

    func testSixDigitsWithLeadingZeros() {
        let s = Script([42])
        let c = ScreenCode(lifetime: 3600, now: 0, random: s.next)
        XCTAssertEqual(c.code, "000042")
        XCTAssertEqual(ScreenCode.spaced(c.code), "000 042")
    }

    func testANewCodeWhenTheMeetingEndsNotWhileItGoesOn() {
        let s = Script([123_456, 654_321])
        var c = ScreenCode(lifetime: 3600, now: 0, random: s.next)
        XCTAssertFalse(c.check(now: 1, devices: 0, random: s.next), "an empty room before any meeting keeps its code")
        XCTAssertFalse(c.check(now: 2, devices: 2, random: s.next), "someone joined: same code for the others")
        XCTAssertFalse(c.check(now: 3, devices: 1, random: s.next))
        XCTAssertTrue(c.check(now: 4, devices: 0, random: s.next), "the last one left: the meeting ended")
        XCTAssertEqual(c.previous, "123456")
        XCTAssertEqual(c.code, "654321")
    }

    func testAMeetingShorterThanATickStillEnds() {
        let s = Script([123_456, 654_321])
        var c = ScreenCode(lifetime: 3600, now: 0, random: s.next)
        c.joined()
        XCTAssertTrue(c.check(now: 1, devices: 0, random: s.next), "joined and left between two checks")
        XCTAssertFalse(c.check(now: 2, devices: 0, random: s.next), "one new code per meeting")
    }

    func testANewCodeWhenItsTimeIsUp() {
        let s = Script([111_111, 222_222])
        var c = ScreenCode(lifetime: 60, now: 100, random: s.next)
        XCTAssertFalse(c.check(now: 159.9, devices: 1, random: s.next))
        XCTAssertTrue(c.check(now: 160, devices: 1, random: s.next))
        XCTAssertEqual(c.code, "222222")
        XCTAssertEqual(c.issuedAt, 160)
    }

    func testNeverTheSameCodeTwiceAndNoModuloBias() {
        // The same draw again is refused; a value in the biased top range is drawn again.
        let s = Script([500_000, 500_000, UInt32.max, 9])
        var c = ScreenCode(lifetime: 1, now: 0, random: s.next)
        XCTAssertTrue(c.check(now: 1, devices: 0, random: s.next))
        XCTAssertEqual(c.code, "000009")
    }

    /// Issue 25, finding 5: with an open audience, viewers coming and going while no
    /// presenter is in are no meeting: the code stays, whoever comes and goes; a presenter
    /// who joins and leaves ends a meeting (a new code). The room core tells floor devices
    /// from viewers, as the shell asks it at each `registered` effect.
    func testViewersComingAndGoingKeepTheCodeAPresenterLeavingChangesIt() {
        typealias H = RoomCoreHarness
        let h = H(floor: .open, audienceMode: .open) { $0.gracePeriod = 0 }
        let s = Script([123_456, 654_321])
        var code = ScreenCode(lifetime: 3600, now: 0, random: s.next)
        func carry(_ effects: [RoomEffect]) {
            for case .registered(let id) in effects { code.registered(floorDevice: h.core.isFloorDevice(id)) }
        }
        var t = 1.0
        for i in 0..<12 {
            let id = ConnectionID(100 + i)
            let hello = h.open(id)
            let proof = RegisterProof.compute(
                passcode: "anything", parameters: hello.parameters(for: .viewer)!, challenge: hello.challenge, role: .viewer, name: "", resumeToken: nil)
            let joined = h.send(.register(RegisterRequest(role: .viewer, proof: proof, resumeToken: nil, name: "")), from: id)
            XCTAssertTrue(joined.contains { if case .registered(id) = $0 { true } else { false } }, "viewer \(i) joins the open audience")
            carry(joined)
            XCTAssertFalse(h.core.isFloorDevice(id))
            XCTAssertFalse(code.check(now: t, devices: h.core.snapshot(now: h.now).devices.count, random: s.next), "viewer \(i) joined")
            carry(h.handle(.closed(id)))
            t += 0.5
            XCTAssertFalse(code.check(now: t, devices: h.core.snapshot(now: h.now).devices.count, random: s.next), "viewer \(i) left")
            t += 0.5
        }
        XCTAssertEqual(code.code, "123456", "12 viewers came and went: the same code")
        // A presenter joins and leaves: the meeting ended.
        let hello = h.open(2)
        let proof = RegisterProof.compute(
            passcode: H.presenterPasscode, parameters: hello.parameters(for: .presenter)!, challenge: hello.challenge, role: .presenter, name: "Ana",
            resumeToken: nil)
        carry(h.send(.register(RegisterRequest(role: .presenter, proof: proof, resumeToken: nil, name: "Ana")), from: 2))
        XCTAssertTrue(h.core.isFloorDevice(2))
        carry(h.handle(.closed(2)))
        XCTAssertTrue(code.check(now: t, devices: h.core.snapshot(now: h.now).devices.count, random: s.next), "the presenter left: a new code")
        XCTAssertEqual(code.code, "654321")
    }
}
