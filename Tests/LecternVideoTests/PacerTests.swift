@testable import LecternVideo
import XCTest

/// The pacing rule on synthetic times: frames go on the refresh nearest their due time, late
/// frames are dropped only when a newer one is due, and nothing drifts.
final class PacerTests: XCTestCase {
    let p = 1.0 / 60

    /// Simulates a loop that presents whenever told, frame n taking `decodeDelay(n)` to
    /// decode (presents return at their refresh); returns the refresh index each frame
    /// was shown at (nil = dropped).
    func simulate(fps: Double, frames: Int, decodeDelay: (Int) -> Double = { _ in 0 }) -> ([Int?], FramePacer) {
        var pacer = FramePacer(refreshPeriod: p)
        var last = 100.0   // the refresh of the last present
        var now = last
        var shown: [Int?] = []
        for n in 0..<frames {
            now += decodeDelay(n)
            let next = last + max(1, ((now - last) / p - 1e-9).rounded(.up)) * p
            switch pacer.decide(time: Double(n) / fps, duration: 1 / fps, nextRefresh: next) {
            case .drop: shown.append(nil)
            case .show(let at):
                XCTAssertGreaterThanOrEqual(at, next - 1e-9)
                pacer.didPresent(time: Double(n) / fps, at: at)
                last = at
                now = at
                shown.append(Int(((at - 100) / p).rounded()))
            }
        }
        return (shown, pacer)
    }

    func testThirtyOnSixtyShowsEveryOtherRefresh() {
        let (shown, pacer) = simulate(fps: 30, frames: 10)
        XCTAssertEqual(shown, [1, 3, 5, 7, 9, 11, 13, 15, 17, 19])
        XCTAssertEqual(pacer.presented, 10); XCTAssertEqual(pacer.dropped, 0)
    }

    func testSixtyOnSixtyShowsEveryRefresh() {
        let (shown, _) = simulate(fps: 60, frames: 6)
        XCTAssertEqual(shown, [1, 2, 3, 4, 5, 6])
    }

    /// 25 fps on 60 Hz: 3:2-like cadence, each frame on the refresh nearest its time.
    func testTwentyFiveOnSixtyCadence() {
        let (shown, pacer) = simulate(fps: 25, frames: 6)
        // due at 1 + n·2.4 refreshes: 1, 3.4, 5.8, 8.2, 10.6, 13
        XCTAssertEqual(shown, [1, 3, 6, 8, 11, 13])
        XCTAssertEqual(pacer.dropped, 0)
    }

    /// A stall of a bit more than a refresh: the late frame is still shown (its successor
    /// is not due yet), then playback is back on time.
    func testSmallLatenessIsShownNotDropped() {
        let (shown, pacer) = simulate(fps: 30, frames: 5, decodeDelay: { $0 == 2 ? 2.5 * self.p : 0 })
        // frame 2 is due at refresh 5 but can only make 6; frame 3 is due at 7.
        XCTAssertEqual(shown, [1, 3, 6, 7, 9])
        XCTAssertEqual(pacer.dropped, 0)
    }

    /// A long stall: the frames whose successors are already due are dropped, and the
    /// timeline doesn't move (frame 10 lands where it would have).
    func testLateFramesAreDroppedWithoutDrift() {
        let (shown, pacer) = simulate(fps: 30, frames: 12, decodeDelay: { $0 == 4 ? 7.5 * self.p : 0 })
        // frame 4 due at refresh 9, arrives for 15: frames 4, 5, 6 dropped (7 is due at 15).
        XCTAssertEqual(shown[0..<4], [1, 3, 5, 7])
        XCTAssertEqual(shown[4..<7], [nil, nil, nil])
        XCTAssertEqual(shown[7...], [15, 17, 19, 21, 23])
        XCTAssertEqual(pacer.dropped, 3); XCTAssertEqual(pacer.presented, 9)
    }

    /// At 60 fps on 60 Hz a frame a refresh late is dropped: the next one is due then.
    func testSixtyFPSOneRefreshLateIsDropped() {
        var pacer = FramePacer(refreshPeriod: p)
        pacer.didPresent(time: 0, at: 10)
        XCTAssertEqual(pacer.decide(time: p, duration: p, nextRefresh: 10 + p), .show(at: 10 + p))
        XCTAssertEqual(pacer.decide(time: p, duration: p, nextRefresh: 10 + 2 * p), .drop)
    }

    /// 120 fps on 60 Hz: every other frame is dropped, the rest are on time.
    func testFasterThanTheDisplayDropsHalf() {
        let (shown, pacer) = simulate(fps: 120, frames: 8)
        XCTAssertEqual(shown.compactMap { $0 }, [1, 2, 3, 4])
        XCTAssertEqual(pacer.dropped, 4)
    }

    /// Early frames wait for their refresh.
    func testEarlyFrameWaitsForItsRefresh() {
        var pacer = FramePacer(refreshPeriod: p)
        pacer.didPresent(time: 0, at: 50)
        XCTAssertEqual(pacer.decide(time: 0.1, duration: 0.1, nextRefresh: 50 + p), .show(at: 50 + 6 * p))
    }

    /// A timestamp far away (a damaged stream) re-anchors instead of freezing or dropping all.
    func testTimestampJumpReanchors() {
        var pacer = FramePacer(refreshPeriod: p)
        pacer.didPresent(time: 0, at: 50)
        XCTAssertEqual(pacer.decide(time: 30, duration: 0.04, nextRefresh: 50 + p), .show(at: 50 + p))
        XCTAssertNil(pacer.origin)
        XCTAssertEqual(pacer.reanchors, 1)
        pacer.didPresent(time: 30, at: 50 + p)
        XCTAssertEqual(pacer.origin!, 50 + p - 30, accuracy: 1e-9)
        // backwards too
        XCTAssertEqual(pacer.decide(time: 1, duration: 0.04, nextRefresh: 50 + 2 * p), .show(at: 50 + 2 * p))
        XCTAssertEqual(pacer.dropped, 0)
    }

    func testReanchorAndShift() {
        var pacer = FramePacer(refreshPeriod: p)
        pacer.didPresent(time: 0, at: 10)
        pacer.shift(by: 2)
        XCTAssertEqual(pacer.origin!, 12, accuracy: 1e-12)
        pacer.reanchor()
        XCTAssertNil(pacer.origin)
        XCTAssertEqual(pacer.decide(time: 5, duration: 0.04, nextRefresh: 20), .show(at: 20))
    }

    /// Presents return a refresh plus wake-up latency: the grid follows the earliest returns,
    /// so late wake-ups (even past half a period) still name the right refresh.
    func testRefreshGridIgnoresLateWakeUps() {
        var grid = RefreshGrid(period: p)
        let base = 500.0
        let latencies = [0.0003, 0.004, 0.0002, 0.009, 0.0001, 0.006, 0.0004, 0.011, 0.0002]
        var best = Double.infinity
        for (i, l) in latencies.enumerated() {
            let refresh = base + Double(2 * i) * p
            best = min(best, l)
            XCTAssertEqual(grid.observe(refresh + l), refresh + best, accuracy: 1e-9, "return \(i)")
        }
    }

    /// A display a little slower than its nominal rate is followed (the window slides), and a
    /// gap of over a second starts afresh.
    func testRefreshGridFollowsDriftAndRestartsAfterAGap() {
        var grid = RefreshGrid(period: p)
        let actual = p * 1.001
        for i in 0..<300 {
            let refresh = 100 + Double(i) * actual
            XCTAssertEqual(grid.observe(refresh + 0.0001), refresh, accuracy: 0.0007, "refresh \(i)")
        }
        XCTAssertEqual(grid.observe(200.0123), 200.0123, accuracy: 1e-12)
    }
}
