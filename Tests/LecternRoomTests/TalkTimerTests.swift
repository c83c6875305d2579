import LecternProtocol
import XCTest

@testable import LecternRoom

/// The talk timer's core with a hand-moved clock: counting up, down from a length, down to
/// an end time, the warning, pause, reset, and its state surviving a restart (a value).
final class TalkTimerTests: XCTestCase {
    let t0 = 1_800_000_000.0

    func testCountsUpPausesAndResets() throws {
        var t = TalkTimer(warnMinutes: 5)
        XCTAssertEqual(t.elapsedMs(at: t0), 0)
        t.start(at: t0)
        XCTAssertEqual(t.elapsedMs(at: t0 + 61.5), 61_500)
        t.pause(at: t0 + 61.5)
        XCTAssertEqual(t.elapsedMs(at: t0 + 500), 61_500, "paused time doesn't count")
        t.start(at: t0 + 500)
        XCTAssertEqual(t.elapsedMs(at: t0 + 510), 71_500)
        XCTAssertNil(t.remainingMs(at: t0 + 510))
        XCTAssertFalse(t.warning(at: t0 + 10_000), "counting up never warns")
        t.reset()
        XCTAssertEqual(t.snapshot(at: t0 + 600).elapsedMs, 0)
        XCTAssertFalse(t.running)
    }

    func testCountdownWarnsInTheLastMinutesAndGoesOver() throws {
        var t = TalkTimer(warnMinutes: 5)
        try t.apply(TimerCommand(action: .set, mode: .countdown, value: 20 * 60_000), at: t0)
        XCTAssertFalse(t.warning(at: t0 + 3600), "not started: no warning")
        try t.apply(TimerCommand(action: .start), at: t0)
        XCTAssertFalse(t.warning(at: t0 + 14 * 60 + 59))
        XCTAssertTrue(t.warning(at: t0 + 15 * 60), "the last 5 minutes")
        let over = t.snapshot(at: t0 + 21 * 60)
        XCTAssertEqual(over.remainingMs, -60_000)
        XCTAssertTrue(over.warning)
        XCTAssertEqual(over.durationMs, 20 * 60_000)
        XCTAssertNil(over.endsAtMs)
        XCTAssertEqual(over.serverTimeMs, UInt64((t0 + 21 * 60) * 1000))
    }

    func testEndTimeCountsToTheClockWhetherOrNotPaused() throws {
        var t = TalkTimer(warnMinutes: 2)
        let end = UInt64((t0 + 600) * 1000)
        try t.apply(TimerCommand(action: .start, mode: .endTime, value: end), at: t0)
        XCTAssertEqual(t.remainingMs(at: t0 + 100), 500_000)
        t.pause(at: t0 + 100)
        XCTAssertEqual(t.remainingMs(at: t0 + 200), 400_000, "the end time comes anyway")
        XCTAssertTrue(t.warning(at: t0 + 481))
        XCTAssertFalse(t.warning(at: t0 + 479))
    }

    func testOutOfRangeIsRefusedAndChangesNothing() {
        var t = TalkTimer()
        for c in [
            TimerCommand(action: .set, mode: .countdown, value: 0),
            // §20.4: a countdown is 1 s to 24 h (1 ms was accepted).
            TimerCommand(action: .set, mode: .countdown, value: 1),
            TimerCommand(action: .set, mode: .countdown, value: ConsoleLimits.minTimerMs - 1),
            TimerCommand(action: .set, mode: .countdown, value: ConsoleLimits.maxTimerMs + 1),
            TimerCommand(action: .set, mode: .endTime, value: UInt64(t0 * 1000) - 1),
            TimerCommand(action: .set, mode: .endTime, value: UInt64(t0 * 1000) + ConsoleLimits.maxTimerMs + 1),
            TimerCommand(action: .start, warnMinutes: 121),
        ] {
            XCTAssertThrowsError(try t.apply(c, at: t0)) { XCTAssertEqual(($0 as? LecternError)?.code, .badTimer) }
        }
        XCTAssertEqual(t, TalkTimer(), "nothing changed")
        XCTAssertNoThrow(try t.apply(TimerCommand(action: .set, mode: .countdown, value: ConsoleLimits.minTimerMs), at: t0), "one second is the shortest talk")
    }

    func testARunningTimerRunsOnThroughARestart() throws {
        var t = TalkTimer()
        try t.apply(TimerCommand(action: .start, mode: .countdown, value: 30 * 60_000), at: t0)
        let saved = try JSONEncoder().encode(t)
        let back = try JSONDecoder().decode(TalkTimer.self, from: saved)
        XCTAssertEqual(back.elapsedMs(at: t0 + 90), 90_000, "the 90 s the service was down count: the talk went on")
        XCTAssertEqual(back.mode, .countdown)
    }

    func testTheRoomPushesTheStateWhenTheWarningStarts() throws {
        let h = RoomCoreHarness(floor: .open, catalog: [deck(1)])
        let a = h.join(1, name: "Ana")
        _ = h.send(.floorRequest, from: 1, device: a)
        let started = h.send(.timer(TimerCommand(action: .start, mode: .countdown, warnMinutes: 1, value: 120_000)), from: 1, device: a)
        XCTAssertEqual(RoomCoreHarness.replies(to: 1, started), [.ok])
        XCTAssertEqual(RoomCoreHarness.states(to: 1, started).last?.console?.timer.running, true)
        XCTAssertTrue(started.contains { if case .persist(let s) = $0 { return s.timer?.running == true } else { return false } }, "saved")
        h.wall.seconds += 30
        XCTAssertEqual(RoomCoreHarness.states(to: 1, h.handle(.tick)), [], "no change: no push")
        h.wall.seconds += 31
        let warned = RoomCoreHarness.states(to: 1, h.handle(.tick))
        XCTAssertEqual(warned.count, 1, "entering the last minute pushes the state")
        XCTAssertEqual(warned.first?.console?.timer.warning, true)
        XCTAssertEqual(warned.first?.console?.timer.elapsedMs, 61_000)
        XCTAssertEqual(RoomCoreHarness.states(to: 1, h.handle(.tick)), [], "once")
    }
}
