import Foundation
import LecternCore
import LecternProtocol
import LecternTestSupport
import XCTest

/// "One connection freezes the room": a peer without a passcode floods small frames; a
/// registered device's round trips stay well under a second because each peer is handled
/// a turn at a time (before: 8–11 s).
final class FloodFairnessTests: XCTestCase {
    func testARegisteredDevicesRoundTripStaysShortWhileAnotherPeerFloods() throws {
        let h = try ServiceHarness()
        let ana = try h.presenter("Ana")
        let flooder = try RawSocket(port: h.port)
        let stop = NSLock()
        var stopped = false
        let done = DispatchGroup()
        // The flooder reads what it is sent (its pongs), so it is never cut off for not reading.
        done.enter()
        DispatchQueue.global().async {
            while stop.withLock({ !stopped }) { _ = flooder.drain(timeout: 0.05) }
            done.leave()
        }
        done.enter()
        DispatchQueue.global().async {
            let block = Hostile.frames(.ping(nonce: 7), count: 20_000)   // 240 kB of pings
            let deadline = MonotonicClock.now() + 4
            while MonotonicClock.now() < deadline && stop.withLock({ !stopped }) { flooder.send(block) }
            done.leave()
        }
        var rtt: [Double] = []
        for _ in 0..<60 {
            let t0 = MonotonicClock.now()
            _ = try ana.state()
            rtt.append(MonotonicClock.now() - t0)
        }
        stop.withLock { stopped = true }
        flooder.shutdown()   // the sender may be blocked in send
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        flooder.close()
        print("round trip during a flood: p50 \(percentile(rtt, 0.5) * 1000) ms, p99 \(percentile(rtt, 0.99) * 1000) ms")
        XCTAssertLessThan(percentile(rtt, 0.99), 0.5, "p99 of a registered device's round trip during a flood")
    }
}

extension RawSocket {
    /// Drains what has arrived within `timeout`.
    func drain(timeout: Double) -> Bool { receive(timeout: timeout).map { !$0.isEmpty } ?? true }
}
