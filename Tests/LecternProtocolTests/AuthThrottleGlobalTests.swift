import LecternProtocol
import XCTest

/// The room's pace of wrong proofs per role, whatever the address (issue 25, finding 10):
/// at most 30 checked in any 60 s window (it let 30 through at once plus 30 a minute: 59
/// in the first minute; now 5 at once plus 25 a minute), and the right passcode from an
/// address of its own checked within 2.4 s while 20 addresses guess as fast as they may
/// (it took up to 10 s). A hand-moved clock.
final class AuthThrottleGlobalTests: XCTestCase {
    /// 20 addresses, each trying every 0.1 s (each the first to try at every instant), for
    /// `seconds`; `legit`: when a person with the right passcode starts trying (from an
    /// address of their own, retrying after the wait they are told). Returns the times of
    /// the wrong proofs checked, and when the person was let in.
    func attack(seconds: Double, legit: Double? = nil, start: Double = 1000) -> (checked: [Double], admitted: Double?) {
        var t = AuthThrottle()
        var checked: [Double] = []
        var admitted: Double?
        var legitNext = legit.map { start + $0 }
        for step in 0..<Int(seconds * 10) {
            let now = start + Double(step) / 10
            for i in 0..<20 {
                let k = AuthThrottle.key(address: "10.0.1.\(i)", role: .moderator)
                if t.attempt(k, role: .moderator, now: now) == .allowed {
                    t.recordFailure(k, role: .moderator, now: now)
                    checked.append(now)
                }
            }
            if admitted == nil, let next = legitNext, now >= next - 1e-9 {
                let k = AuthThrottle.key(address: "10.0.9.9", role: .moderator)
                switch t.attempt(k, role: .moderator, now: now) {
                case .allowed:
                    admitted = now
                    t.recordSuccess(k, now: now)
                case .wait(let s): legitNext = now + s
                }
            }
        }
        return (checked, admitted)
    }

    func testNoSixtySecondWindowChecksMoreThanThirty() {
        let (checked, _) = attack(seconds: 300)
        for (i, first) in checked.enumerated() {
            let inWindow = checked[i...].prefix { $0 < first + 60 - 1e-9 }.count
            XCTAssertLessThanOrEqual(inWindow, 30, "a window from \(first - 1000) s")
        }
        let firstMinute = checked.filter { $0 < 1060 }.count
        XCTAssertLessThanOrEqual(firstMinute, 30, "first minute (was 59)")
        // Guessers that keep trying get a slot a second after it opens: one every 3.4 s.
        XCTAssertGreaterThanOrEqual(checked.count, 80, "a slot every 3.4 s for guessers, not less")
    }

    /// The right passcode during the attack, starting at many different moments (from 7 s
    /// on: the attack's own first addresses are newcomers for their first 4.8 s): let in
    /// within 2.4 s each time (the slot's first second is for newcomers).
    func testTheRightPasscodeIsCheckedWithinTwoPointFourSecondsDuringTheAttack() {
        for offset in stride(from: 7.0, to: 65, by: 1.3) {
            let r = attack(seconds: offset + 10, legit: offset)
            let admitted = try? XCTUnwrap(r.admitted, "starting at \(offset) s")
            guard let admitted else { continue }
            XCTAssertLessThanOrEqual(admitted - (1000 + offset), 2.4 + 0.1, "starting at \(offset) s (steps of 0.1 s)")
        }
    }

    /// A decision to the millisecond (the budget's arithmetic is in floating point).
    func ms(_ d: AuthThrottle.Decision) -> String {
        if case .wait(let s) = d { return "wait \(Int((s * 1000).rounded()))" }
        return "allowed"
    }

    func testManyAddressesDontMultiplyTheRateAndEachWaitIsAtMostThreeAndAHalfSeconds() {
        var t = AuthThrottle()
        // Five wrong proofs at once from five addresses: the budget's burst.
        for i in 0..<5 {
            let k = AuthThrottle.key(address: "10.0.0.\(i)", role: .moderator)
            XCTAssertEqual(ms(t.attempt(k, role: .moderator, now: 10)), "allowed")
            t.recordFailure(k, role: .moderator, now: 10)
        }
        let rows: [(address: String, role: Role, now: Double, expect: String, wrong: Bool)] = [
            ("10.0.1.2", .moderator, 10, "wait 2400", false),   // a newcomer: when the budget allows one
            ("10.0.0.1", .moderator, 11, "wait 2400", false),   // guessed lately: a second after that
            ("10.0.1.2", .moderator, 12.4, "allowed", true),
            ("10.0.0.1", .moderator, 15.5, "wait 300", false),   // 12.4 + 2.4 + 1
            ("10.0.1.3", .moderator, 14.85, "allowed", false),   // a newcomer at the slot's start (the right passcode)
            ("10.0.0.1", .presenter, 14, "allowed", true),   // another role: its own budget
            ("10.0.0.1", .moderator, 15.85, "allowed", true),
        ]
        for (n, r) in rows.enumerated() {
            let k = AuthThrottle.key(address: r.address, role: r.role)
            XCTAssertEqual(ms(t.check(k, role: r.role, now: r.now)), r.expect, "row \(n)")
            if r.wrong { t.recordFailure(k, role: r.role, now: r.now) }
        }
    }

    func testTheRightPasscodeGetsInWithinSecondsOnceGuessingStops() {
        var t = AuthThrottle()
        for i in 0..<40 { t.recordFailure(AuthThrottle.key(address: "10.0.3.\(i)", role: .moderator), role: .moderator, now: 100) }
        let moderator = AuthThrottle.key(address: "10.0.9.9", role: .moderator)
        guard case .wait(let s) = t.check(moderator, role: .moderator, now: 100) else { return XCTFail("not throttled") }
        XCTAssertLessThanOrEqual(s, 2.4 + 1e-9)
        XCTAssertEqual(t.check(moderator, role: .moderator, now: 102.5), .allowed)
        t.recordSuccess(moderator, now: 102.5)
    }

    /// Kept waiting longer than 4.8 s without a wrong proof: no newcomer any more.
    func testAnAddressKeptWaitingIsNoNewcomer() {
        var t = AuthThrottle()
        for i in 0..<5 { t.recordFailure(AuthThrottle.key(address: "10.0.1.\(10 + i)", role: .moderator), role: .moderator, now: 0) }
        let k = AuthThrottle.key(address: "10.0.1.2", role: .moderator)
        XCTAssertEqual(ms(t.attempt(k, role: .moderator, now: 0)), "wait 2400")
        XCTAssertTrue(t.isNewcomer(k, now: 4.8))
        XCTAssertFalse(t.isNewcomer(k, now: 4.9))
        XCTAssertTrue(t.isNewcomer(AuthThrottle.key(address: "10.0.9.9", role: .moderator), now: 4.5))
        // A minute without trying: a newcomer again.
        XCTAssertTrue(t.isNewcomer(k, now: 61))
    }

    func testThePerAddressThrottleStillApplies() {
        var t = AuthThrottle()
        let k = AuthThrottle.key(address: "10.0.0.5", role: .presenter)
        for i in 0..<5 { t.recordFailure(k, role: .presenter, now: Double(i) * 3) }
        XCTAssertEqual(t.check(k, now: 12), .wait(seconds: 2))
        XCTAssertEqual(t.checkGlobal(role: .presenter, newcomer: false, now: 12), .allowed, "the room's budget refilled meanwhile")
    }
}
