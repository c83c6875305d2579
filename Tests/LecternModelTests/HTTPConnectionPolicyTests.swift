import LecternModel
import XCTest

final class HTTPConnectionPolicyTests: XCTestCase {
    func testAHeadMustArriveWithinTheHeadTimeout() {
        let p = HTTPConnectionPolicy(now: 100, headTimeout: 5, idleTimeout: 30)
        XCTAssertEqual(p.poll(now: 104.9), .none)
        XCTAssertEqual(p.deadline, 105)
        XCTAssertEqual(p.poll(now: 105), .closeHeadTimeout)
    }

    func testAnIdleKeepAliveConnectionClosesAfterTheIdleTimeout() {
        var p = HTTPConnectionPolicy(now: 0, headTimeout: 5, idleTimeout: 30)
        p.headReceived(now: 1)
        XCTAssertNil(p.deadline)
        p.responseStarted(now: 1)
        XCTAssertEqual(p.poll(now: 4), .none)   // a response being written is not idle
        p.responseWritten(now: 4)
        XCTAssertEqual(p.poll(now: 33.9), .none)
        XCTAssertEqual(p.poll(now: 34), .closeIdle)
        p.headReceived(now: 33)
        XCTAssertEqual(p.poll(now: 200), .none)
    }

    func testOneRequestAtATime() {
        var p = HTTPConnectionPolicy(now: 0)
        XCTAssertTrue(p.mayAnswer)
        p.headReceived(now: 0)
        p.responseStarted(now: 0)
        XCTAssertFalse(p.mayAnswer)
        p.responseWritten(now: 0.1)
        XCTAssertTrue(p.mayAnswer)
        p.writabilityChanged(false, now: 0.2)
        XCTAssertFalse(p.mayAnswer)
        XCTAssertEqual(p.deadline, 5.2)   // unwritable with nothing being written: a stall too
        p.writabilityChanged(true, now: 0.3)
        XCTAssertTrue(p.mayAnswer)
    }

    func testAPeerThatDoesNotReadIsClosedAfterTheStallTimeout() {
        var p = HTTPConnectionPolicy(now: 0, stallTimeout: 5)
        p.headReceived(now: 0)
        p.responseStarted(now: 0)
        p.writabilityChanged(false, now: 1)
        XCTAssertEqual(p.deadline, 5)
        XCTAssertEqual(p.poll(now: 4.9), .none)
        XCTAssertEqual(p.poll(now: 5), .closeStalled)
        // Taking the response in time clears it.
        p.writabilityChanged(true, now: 4.5)
        p.responseWritten(now: 4.6)
        XCTAssertEqual(p.poll(now: 7), .none)
    }

    func testAResponseThatIsNotTakenInTimeCloses() {
        var p = HTTPConnectionPolicy(now: 0, stallTimeout: 5)
        p.headReceived(now: 0)
        p.responseStarted(now: 1)
        XCTAssertEqual(p.poll(now: 5.9), .none)
        XCTAssertEqual(p.poll(now: 6), .closeStalled)
    }
}
