import Foundation
import LecternModel
import LecternSystem
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
        let flood = try PingFlood(port: h.port, seconds: 4, tls: h.fingerprint)
        var rtt: [Double] = []
        for _ in 0..<60 {
            let t0 = MonotonicClock.now()
            _ = try ana.state()
            rtt.append(MonotonicClock.now() - t0)
        }
        XCTAssertTrue(flood.stop())
        print("round trip during a flood: p50 \(percentile(rtt, 0.5) * 1000) ms, p99 \(percentile(rtt, 0.99) * 1000) ms")
        // Handling the flood first shows as 8–11 s; a loaded CI machine (two cores, a debug
        // build, TLS on both peers) has shown a p99 of 0.72 s with the turns intact. The
        // bounds sit between the two: what a person at the remote would still call prompt.
        XCTAssertLessThan(percentile(rtt, 0.5), 0.5, "median of a registered device's round trip during a flood")
        XCTAssertLessThan(percentile(rtt, 0.99), 2, "p99 of a registered device's round trip during a flood")
    }
}
