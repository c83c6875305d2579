import Foundation
import LecternTestSupport
import XCTest

/// The test clock itself: free-running, it jumps; stepped, a sleeper waits for the test.
final class VirtualClockTests: XCTestCase {
    func testFreeRunningSleepsJumpAtOnce() {
        let c = VirtualClock(start: 10)
        c.sleep(until: 25)
        XCTAssertEqual(c.now(), 25)
        c.sleep(until: 20)
        XCTAssertEqual(c.now(), 25, "never back")
    }

    func testSteppedSleeperWaitsForTheTest() throws {
        final class Wakes: @unchecked Sendable {
            let lock = NSLock()
            private var times: [Double] = []
            func append(_ t: Double) { lock.lock(); times.append(t); lock.unlock() }
            var all: [Double] { lock.lock(); defer { lock.unlock() }; return times }
        }
        let c = VirtualClock(start: 10, stepped: true)
        let woke = Wakes()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for d in [11.0, 12.5, 12.5, 13.0] {
                c.sleep(until: d)
                woke.append(c.now())   // the clock read before `woke` is locked: `run` checks with the clock locked
            }
            done.signal()
        }
        try c.run("the first wake-up") { woke.all.count >= 1 }
        XCTAssertEqual(c.now(), 11)
        try c.run("all four") { woke.all.count == 4 }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(woke.all, [11, 12.5, 12.5, 13], "each sleep ends exactly at its deadline; one already passed doesn't wait")
    }

    func testPassMovesTimeOnWithNobodySleeping() {
        let c = VirtualClock(start: 0, stepped: true)
        c.pass(1, step: 0.25)
        XCTAssertEqual(c.now(), 1)
    }
}
