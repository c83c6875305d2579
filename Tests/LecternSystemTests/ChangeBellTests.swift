import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import LecternSystem

/// The broadcast for state behind a Mutex, and the one-way hand-over of a value.
final class ChangeBellTests: XCTestCase {
    /// A change between the look at the state and the wait is not missed: the wait for a
    /// ring after the generation noted returns at once.
    func testARingBetweenTheLookAndTheWaitIsNotMissed() {
        let bell = ChangeBell()
        let seen = bell.generation
        bell.ring()
        XCTAssertTrue(bell.wait(after: seen, until: .now()))
    }

    func testAWaitWithoutARingEndsAtItsDeadline() {
        let bell = ChangeBell()
        XCTAssertFalse(bell.wait(after: bell.generation, until: .now() + 0.05))
        XCTAssertFalse(bell.wait(after: bell.generation, until: .now() + 0.05), "a timed-out waiter leaves nothing behind")
    }

    /// Every thread waiting wakes at one ring (a broadcast, not a signal to one).
    func testEveryWaiterWakesAtARing() {
        let bell = ChangeBell()
        let seen = bell.generation
        let woken = Mutex(0)
        let done = DispatchGroup()
        for _ in 0..<4 {
            done.enter()
            Thread.detachNewThread {
                if bell.wait(after: seen, until: .now() + 10) { woken.withLock { $0 += 1 } }
                done.leave()
            }
        }
        // On the event: all four asleep in the bell before it rings.
        let asleep = expectation(for: NSPredicate { _, _ in bell.sleeping == 4 }, evaluatedWith: nil)
        wait(for: [asleep], timeout: 10)
        bell.ring()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(woken.withLock { $0 }, 4)
    }

    func testAHandoffGivesItsValueOnce() {
        final class Device { var writes = 0 }
        let handoff = Handoff(Device())
        let first = handoff.take()
        XCTAssertNotNil(first)
        XCTAssertNil(handoff.take(), "taken once: nobody else gets it")
    }
}
