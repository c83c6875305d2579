import LecternRoom
import XCTest

/// The code on the wall as a pure state machine: six digits, a new one when a meeting
/// ends and when its time is up, never the same twice in a row.
final class ScreenCodeTests: XCTestCase {
    /// A scripted random source.
    final class Script {
        var values: [UInt32]
        init(_ v: [UInt32]) { values = v }
        func next() -> UInt32 { values.isEmpty ? 7 : values.removeFirst() }
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
}
