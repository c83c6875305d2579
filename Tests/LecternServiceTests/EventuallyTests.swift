import Foundation
import LecternModel
import LecternSystem
import LecternTestSupport
import XCTest

/// The one way tests wait: at once when the condition holds, on an event where there is
/// one, and a failure that names what never happened.
final class EventuallyTests: XCTestCase {
    func testReturnsAtOnceWhenTheConditionHolds() throws {
        var checks = 0
        let t0 = MonotonicClock.now()
        try eventually("something true", timeout: 5) {
            checks += 1; return true
        }
        XCTAssertEqual(checks, 1)
        XCTAssertLessThan(MonotonicClock.now() - t0, 1)
    }

    func testTheTimeOutNamesWhatWasAwaitedAndTheLastError() {
        struct Nope: Error, CustomStringConvertible { var description: String { "no such thing" } }
        var seen = 0
        XCTAssertThrowsError(
            try eventually("the moon to turn blue (seen \(seen))", timeout: 0.05, interval: 0.01) {
                seen += 1
                throw Nope()
            }
        ) { error in
            let e = error as? EventuallyTimeout
            XCTAssertEqual(e?.timeout, 0.05)
            XCTAssertGreaterThan(seen, 1, "checked again until the deadline")
            XCTAssertEqual("\(error)", "timed out after 0.05 s waiting for the moon to turn blue (seen \(seen)) (last error: no such thing)")
        }
    }

    func testOnAnEventWakesWhenSignalled() throws {
        final class Flag: @unchecked Sendable { var ready = false }
        let signal = NSCondition(), flag = Flag()
        Thread.detachNewThread {
            signal.lock(); flag.ready = true; signal.broadcast(); signal.unlock()
        }
        // A long interval: only the broadcast can wake the wait in time.
        let t0 = MonotonicClock.now()
        try eventually("the other thread", timeout: 10, on: signal, interval: 5) { flag.ready }
        XCTAssertLessThan(MonotonicClock.now() - t0, 4)
    }

    func testOnAnEventAConditionThatThrowsEndsTheWait() {
        struct Gone: Error {}
        XCTAssertThrowsError(try eventually("output", timeout: 10, on: NSCondition()) { throw Gone() }) { error in
            XCTAssertTrue(error is Gone)
        }
    }
}
