import LecternVideo
import XCTest

/// `ClipPacing`: the display loop's takes from a clip source's queue, with the times in.
final class ClipPacingTests: XCTestCase {
    let p = 1.0 / 60

    /// One take: the queue's timeline times and the refresh; the expected take.
    struct Row {
        var queued: [Double]
        var refresh: Double
        var expect: ClipPacing.Take
        var dropped: Int
    }

    /// Anchored at 100 + 0 (frame 0 taken at refresh 100), 30 fps into 60 Hz.
    func anchored() -> ClipPacing {
        var c = ClipPacing()
        XCTAssertEqual(c.take(queued: [0, 1.0 / 30], refresh: 100, period: p), .show(index: 0))
        c.presented(at: 100)
        return c
    }

    func testTakesAtARefresh() {
        let f = 1.0 / 30
        let rows: [(String, Row)] = [
            ("the next frame is not due yet", Row(queued: [f, 2 * f], refresh: 100 + p, expect: .none, dropped: 0)),
            ("the next frame is due", Row(queued: [f, 2 * f], refresh: 100 + 2 * p, expect: .show(index: 0), dropped: 0)),
            ("nearest refresh: due a third of a period later", Row(queued: [f + p / 3], refresh: 100 + 2 * p, expect: .show(index: 0), dropped: 0)),
            ("nearest refresh: due two thirds of a period later", Row(queued: [f + 2 * p / 3], refresh: 100 + 2 * p, expect: .none, dropped: 0)),
            ("late: the newest due is shown, the ones before dropped", Row(queued: [f, 2 * f, 3 * f], refresh: 100 + 5 * p, expect: .show(index: 1), dropped: 1)),
            ("very late: all but the last dropped", Row(queued: [f, 2 * f, 3 * f], refresh: 100 + 8 * p, expect: .show(index: 2), dropped: 2)),
            ("nothing queued", Row(queued: [], refresh: 100 + 2 * p, expect: .none, dropped: 0)),
            ("more than maxLag early: re-anchored", Row(queued: [5], refresh: 100 + 2 * p, expect: .show(index: 0), dropped: 0)),
        ]
        for (what, row) in rows {
            var c = anchored()
            XCTAssertEqual(c.take(queued: row.queued, refresh: row.refresh, period: p), row.expect, what)
            XCTAssertEqual(c.dropped, row.dropped, what)
        }
    }

    func testTheFirstPresentAnchorsAndLaterOnesCount() {
        var c = ClipPacing()
        XCTAssertEqual(c.take(queued: [0.5], refresh: 100, period: p), .show(index: 0))
        XCTAssertEqual(c.origin, 99.5)
        c.presented(at: 100 + p)   // it really went on a refresh later
        XCTAssertEqual(c.origin!, 99.5 + p, accuracy: 1e-9)
        XCTAssertEqual(c.take(queued: [0.5 + 1.0 / 30], refresh: 100 + 3 * p, period: p), .show(index: 0))
        c.presented(at: 100 + 4 * p)   // not an anchor: only counted
        XCTAssertEqual(c.origin!, 99.5 + p, accuracy: 1e-9)
        XCTAssertEqual(c.presented, 2)
    }

    func testStaleFramesAreNotScaled() {
        var c = anchored()
        XCTAssertEqual(c.take(queued: [], refresh: 100 + 10 * p, period: p), .none)
        let f = 1.0 / 30
        XCTAssertTrue(c.isStale(time: f, duration: f), "over two refreshes before the last one")
        XCTAssertTrue(c.isStale(time: 4 * f, duration: f), "over at the last refresh")
        XCTAssertFalse(c.isStale(time: 5 * f, duration: f), "on screen at the last refresh")
        XCTAssertEqual(c.dropped, 2)
        var fresh = ClipPacing()
        XCTAssertFalse(fresh.isStale(time: 0, duration: f), "nothing is stale before the timeline is anchored")
    }

    func testTheEndComesWhenTheLastFrameHadItsTime() {
        var c = anchored()
        let f = 1.0 / 30
        // The clip's last frame is frame 0 (a one-frame clip, ending at f).
        XCTAssertFalse(c.isOver(end: f, queued: 1), "a frame is still queued")
        XCTAssertFalse(c.isOver(end: 3 * f, queued: 0), "the last frame is still on")
        _ = c.take(queued: [], refresh: 100 + 5 * p, period: p)
        XCTAssertTrue(c.isOver(end: 3 * f, queued: 0), "the next refresh is where it runs out")
        XCTAssertTrue(ClipPacing().isOver(end: 1, queued: 0), "never shown")
    }

    /// The last frame taken counts before the clip is over: not over until its present is
    /// reported (or a later refresh shows it is past), so the final status counts it.
    func testTheEndWaitsForTheLastFramesPresent() {
        var c = anchored()
        let f = 1.0 / 60   // a 60 fps clip: its last frame is over at the next refresh
        XCTAssertEqual(c.take(queued: [f], refresh: 100 + p, period: p), .show(index: 0))
        XCTAssertFalse(c.isOver(end: 2 * f, queued: 0), "taken, not yet presented")
        c.presented(at: 100 + p)
        XCTAssertTrue(c.isOver(end: 2 * f, queued: 0))
        XCTAssertEqual(c.presented, 2)
        XCTAssertEqual(c.take(queued: [2 * f], refresh: 100 + 2 * p, period: p), .show(index: 0))
        XCTAssertEqual(c.take(queued: [], refresh: 100 + 3 * p, period: p), .none)
        XCTAssertTrue(c.isOver(end: 3 * f, queued: 0), "a later refresh was asked: its present is past")
    }

    func testPauseSeekAndSoundMoveTheTimeline() {
        var c = anchored()
        c.reanchor()
        XCTAssertNil(c.origin)
        XCTAssertEqual(c.take(queued: [1], refresh: 200, period: p), .show(index: 0))
        XCTAssertEqual(c.origin, 199)
        c.follow(origin: 199.001)
        XCTAssertEqual(c.origin, 199, "within tolerance: kept")
        c.follow(origin: 199.02)
        XCTAssertEqual(c.origin, 199.02, "the sound's clock")
        // The picture now follows the sound: the frame at 1 + 2/60 is due at 200.02 + 2/60.
        XCTAssertEqual(c.take(queued: [1 + 2 * p], refresh: 200 + 2 * p, period: p), .none, "held for the sound")
        XCTAssertEqual(c.take(queued: [1 + 2 * p], refresh: 200 + 3 * p, period: p), .show(index: 0))
    }

    /// A display loop taking at every refresh from a queue kept full (frames of `fps` from
    /// time 0, three ahead, `jump` added to the times from frame `jumpAt` on): the refresh
    /// index each frame was shown at (nil: dropped).
    func simulate(fps: Double, frames: Int, jumpAt: Int = .max, jump: Double = 0) -> ([Int?], ClipPacing) {
        var c = ClipPacing()
        var shown = [Int?](repeating: nil, count: frames)
        var next = 0
        var k = 0
        func time(_ n: Int) -> Double { Double(n) / fps + (n >= jumpAt ? jump : 0) }
        while next < frames && k < 10_000 {
            let queued = (next..<min(frames, next + 3)).map(time)
            if case .show(let i) = c.take(queued: queued, refresh: 100 + Double(k) * p, period: p) {
                c.presented(at: 100 + Double(k) * p)
                shown[next + i] = k
                next += i + 1
            }
            k += 1
        }
        return (shown, c)
    }

    /// Frames go on the refresh nearest their time: every other one at 30 fps, every one at
    /// 60, 25 fps in a 3:2-like cadence; faster than the display, every other one is dropped.
    func testCadences() {
        XCTAssertEqual(simulate(fps: 30, frames: 6).0, [0, 2, 4, 6, 8, 10])
        XCTAssertEqual(simulate(fps: 60, frames: 6).0, [0, 1, 2, 3, 4, 5])
        let (quarter, c25) = simulate(fps: 25, frames: 6)
        // due at n·2.4 refreshes: 0, 2.4, 4.8, 7.2, 9.6, 12
        XCTAssertEqual(quarter, [0, 2, 5, 7, 10, 12])
        XCTAssertEqual(c25.dropped, 0)
        let (double, c120) = simulate(fps: 120, frames: 9)
        XCTAssertEqual(double, [0, nil, 1, nil, 2, nil, 3, nil, 4])
        XCTAssertEqual(c120.dropped, 4)
        XCTAssertEqual(c120.presented, 5)
    }

    /// A timestamp far away (a damaged stream), forwards or backwards, re-anchors instead of
    /// freezing or dropping everything: the frame is shown at the next refresh, and the ones
    /// after it go on at the clip's pace.
    func testATimestampJumpReanchors() {
        for jump in [30.0, -30.0] {
            let (shown, c) = simulate(fps: 30, frames: 8, jumpAt: 4, jump: jump)
            XCTAssertEqual(shown, [0, 2, 4, 6, 7, 9, 11, 13], "jump \(jump)")
            XCTAssertEqual(c.reanchors, 1, "jump \(jump)")
            XCTAssertEqual(c.dropped, 0, "jump \(jump)")
        }
    }
}
