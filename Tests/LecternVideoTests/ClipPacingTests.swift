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
}
