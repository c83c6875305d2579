import LecternProtocol
import XCTest

/// The room's budget of wrong proofs per role, whatever the address.
final class AuthThrottleGlobalTests: XCTestCase {
    func testManyAddressesDontMultiplyTheRate() {
        var t = AuthThrottle(globalBurst: 30, globalPerMinute: 30)
        // 3 wrong guesses each from 10 addresses: under every per-address limit.
        for i in 0..<10 {
            for _ in 0..<3 {
                let k = AuthThrottle.key(address: "10.0.1.\(i)", role: .moderator)
                XCTAssertEqual(t.check(k, role: .moderator, now: 10), .allowed)
                t.recordFailure(k, role: .moderator, now: 10)
            }
        }
        // A fresh address now waits too: the room's budget is spent.
        let fresh = AuthThrottle.key(address: "10.0.2.1", role: .moderator)
        XCTAssertEqual(t.check(fresh, now: 10), .allowed)
        XCTAssertEqual(t.check(fresh, role: .moderator, now: 10), .wait(seconds: 2))
        // The presenter role has its own budget.
        XCTAssertEqual(t.check(AuthThrottle.key(address: "10.0.2.1", role: .presenter), role: .presenter, now: 10), .allowed)
    }

    func testAGuesserKeepingAtItGetsTheRefillRateOnly() {
        var t = AuthThrottle(globalBurst: 30, globalPerMinute: 30)
        var wrong = 0
        // 600 attempts from 600 addresses over 5 minutes (one every 0.5 s).
        for i in 0..<600 {
            let now = Double(i) * 0.5
            let k = AuthThrottle.key(address: "10.1.\(i / 250).\(i % 250)", role: .moderator)
            if t.check(k, role: .moderator, now: now) == .allowed {
                t.recordFailure(k, role: .moderator, now: now)
                wrong += 1
            }
        }
        // 30 at once, then 30 a minute: 30 + 5 × 30 at most.
        XCTAssertLessThanOrEqual(wrong, 30 + 150)
        XCTAssertGreaterThanOrEqual(wrong, 150)
    }

    func testTheRightPasscodeGetsInWithinSecondsOnceGuessingStops() {
        var t = AuthThrottle(globalBurst: 30, globalPerMinute: 30)
        for i in 0..<40 { t.recordFailure(AuthThrottle.key(address: "10.0.3.\(i)", role: .moderator), role: .moderator, now: 100) }
        let moderator = AuthThrottle.key(address: "10.0.9.9", role: .moderator)
        guard case .wait(let s) = t.check(moderator, role: .moderator, now: 100) else { return XCTFail("not throttled") }
        XCTAssertLessThanOrEqual(s, 2)
        XCTAssertEqual(t.check(moderator, role: .moderator, now: 102), .allowed)
        t.recordSuccess(moderator, now: 102)
    }

    func testThePerAddressThrottleStillApplies() {
        var t = AuthThrottle()
        let k = AuthThrottle.key(address: "10.0.0.5", role: .presenter)
        for _ in 0..<5 { t.recordFailure(k, role: .presenter, now: 0) }
        XCTAssertEqual(t.check(k, role: .presenter, now: 0), .wait(seconds: 2))
        XCTAssertEqual(t.checkGlobal(role: .presenter, now: 0), .allowed)
    }
}
