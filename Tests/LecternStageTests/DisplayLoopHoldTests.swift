import Foundation
import LecternModel
import LecternSystem
import LecternDisplay
import LecternPipeline
import LecternTestSupport
import Synchronization
import XCTest

@testable import LecternStage

/// A page turn in one pane of a split while a clip plays in the other, on a real virtual
/// display (60 Hz): the clip's composition is drawn ahead of each refresh, and a turn that
/// comes after that but before the commit point is drawn into it and shown at that refresh,
/// not the one after (issue 26's page turn beside a clip: one refresh + 2 ms at most).
final class DisplayLoopHoldTests: XCTestCase {
    let mode = DisplayMode(width: 320, height: 180, refresh: 60)

    func testATurnAfterTheClipsFrameWasDrawnMakesTheSameRefresh() throws {
        let display = VirtualDisplay(mode: mode)
        let rects = WallLayout.split.paneRects(width: mode.width, height: mode.height)
        // Each turn's op, and the refresh at which the present that showed it became visible.
        let shownAt = Mutex<[Int: Double]>([:])
        var hooks = DisplayHooks { r in .success(DisplayLoopCacheTests.page(r.scene, r)) }
        hooks.cached = { r in DisplayLoopCacheTests.page(r.scene, r) }   // every page drawn ahead
        hooks.report = { e in
            if case .shown(let op?, _) = e { shownAt.withLock { $0[op] = display.lastPresentTime } }
        }
        let loop = DisplayLoop(output: display, core: StageCore(mode: mode), ink: InkOverlay(), hooks: hooks)
        defer { loop.stop() }
        let clip = DisplayLoopPresentTests.EveryNth(every: 1, width: rects[1].width, height: rects[1].height)
        loop.attach(serial: 1, clip)
        func plan(_ page: Int) -> WallPlan { WallPlan(layout: .split, panes: [.scene(.page(content: "deck", page: page)), .clip(serial: 1)]) }
        loop.post(.show(op: 0, plan(1)))
        try eventually("the clip playing", timeout: 20) { clip.counts.presented >= 30 }

        let period = mode.frameInterval, turns = 20
        var made = 0
        for op in 1...turns {
            // 4 ms before a refresh: after the clip's frame for it was drawn (the compose lead
            // is 8 ms at least), before the commit point (1.5 ms and what drawing a pane takes;
            // a loaded machine whose wake-ups come late commits earlier: then 1 ms before that).
            let before = max(0.004, loop.commitLead + 0.001)
            var at = display.lastPresentTime + period - before
            while at < MonotonicClock.now() + 0.001 { at += period }
            MonotonicClock.sleep(until: at)
            let posted = MonotonicClock.now()
            let refresh = display.lastPresentTime + period * ((posted - display.lastPresentTime) / period).rounded(.up)
            loop.post(.show(op: op, plan(op % 3 + 1)))
            try eventually("turn \(op) shown", timeout: 10) { shownAt.withLock { $0[op] != nil } }
            let shown = try XCTUnwrap(shownAt.withLock { $0[op] })
            XCTAssertLessThanOrEqual(shown - posted, period + 0.002 + before, "turn \(op) waited more than a refresh")
            if abs(shown - refresh) < period / 2 { made += 1 }
        }
        // Without the hold, none makes it (the clip's frame for that refresh is committed
        // already); a loaded machine may wake the loop late now and then.
        XCTAssertGreaterThanOrEqual(made, turns * 3 / 4, "turns shown at the refresh they came before: \(made) of \(turns)")
        // What went on the wall: the last turn's page beside the clip's last frame.
        let wall = display.readBack()
        XCTAssertEqual(wall.pixel(x: rects[0].x + rects[0].width / 2, y: rects[0].y + rects[0].height / 2), DisplayLoopCacheTests.color(turns % 3 + 1))
        XCTAssertTrue(clip.frames.contains { $0.pixel(x: 5, y: 5) == wall.pixel(x: rects[1].x + 5, y: rects[1].y + 5) }, "the clip beside it")
    }
}
