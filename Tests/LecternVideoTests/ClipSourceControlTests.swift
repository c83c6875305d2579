import Foundation
import LecternModel
import LecternSystem
import LecternTestSupport
import LecternVideo
import XCTest

/// The remote control of a clip source: pause, seek, stop. Time that passes while paused
/// passes on the hand-moved refresh clock (no test sleeps to prove that nothing happens); one
/// live twin checks the same pause on the real clock. (Loop, and a seek while paused:
/// ClipSourceTests.)
final class ClipSourceControlTests: XCTestCase {
    /// After a pause on frame `number` and a resume: the play ended, nothing was skipped across
    /// the pause (the next frame came next, `held` says how long after), every frame was shown
    /// or (a stall of the machine) dropped.
    private func assertPlayedOn(
        _ d: PaneDriver, after number: Int, spec: ClipSpec, held: (Double) -> Bool, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let result = try XCTUnwrap(d.ends.results.first, file: file, line: line)
        XCTAssertEqual(result.end, .ended, file: file, line: line)
        let numbers = d.shown.compactMap(\.number)
        XCTAssertEqual(numbers.count, d.shown.count, file: file, line: line)
        let i = try XCTUnwrap(numbers.firstIndex(of: number), file: file, line: line)
        XCTAssertEqual(numbers[i + 1], number + 1, file: file, line: line)
        let gap = d.shown[i + 1].refresh - d.shown[i].refresh
        XCTAssertTrue(held(gap), "held for \(gap) s", file: file, line: line)
        XCTAssertEqual(result.status.presented + result.status.dropped, spec.frameCount, file: file, line: line)
        XCTAssertEqual(result.status.state, .stopped, file: file, line: line)
    }

    func testPauseHoldsTheFrameAndResumeGoesOn() throws {
        let spec = ClipSpec(width: 640, height: 480, fps: 30, seconds: 2)
        let control = PlaybackControl()
        let d = try PaneDriver(Clips.make(spec), width: 1920, height: 1080, control: control)
        for _ in 0..<30 { try d.refresh() }   // frames 0...14
        control.pause()
        try eventually("the pause", timeout: 5) { control.status.state == .paused }
        let number = try XCTUnwrap(d.shown.last?.number)
        XCTAssertEqual(number, 14)
        XCTAssertEqual(control.status.position, Double(number) / 30, accuracy: 0.001)
        // Ten seconds of refreshes pass while paused (far past the clip's end): nothing new.
        for _ in 0..<600 { XCTAssertNil(try d.refresh(settle: false), "a frame while paused") }
        XCTAssertEqual(Reader.number(try XCTUnwrap(d.last), rect: PixelRect(x: 240, y: 0, width: 1440, height: 1080)), number)
        control.resume()
        try d.runToEnd()
        try assertPlayedOn(d, after: number, spec: spec) { $0 >= 10 && $0 < 10.2 }
    }

    /// The live twin of the test above: the same pause on the real clock, against the real
    /// scheduling of a loaded machine.
    func testPauseHoldsTheFrameOnTheRealClock() throws {
        let spec = ClipSpec(width: 640, height: 480, fps: 30, seconds: 2)
        let control = PlaybackControl()
        let d = try PaneDriver(Clips.make(spec), width: 1920, height: 1080, control: control, t0: MonotonicClock.now() + 0.1)
        while d.shown.count < 15 && d.k < 600 { try d.refreshOnTheClock() }
        control.pause()
        // The behaviour under test, not synchronisation: real refreshes pass while paused (12
        // frames' worth) and nothing is taken. The test above is exact.
        let pausedAt = d.k
        while d.k < pausedAt + 24 { try d.refreshOnTheClock() }
        try eventually("the pause", timeout: 3, interval: 0.005) { control.status.state == .paused }
        let number = try XCTUnwrap(d.shown.last?.number)
        let held = d.shown.count
        let quiet = d.k
        while d.k < quiet + 24 { XCTAssertNil(try d.refreshOnTheClock(), "a frame while paused") }
        XCTAssertEqual(d.shown.count, held)
        XCTAssertEqual(control.status.position, Double(number) / 30, accuracy: 0.001)
        control.resume()
        while !d.ended && d.k < 60 * 20 { try d.refreshOnTheClock() }
        try eventually("onEnd", timeout: 10) { d.ended }
        try assertPlayedOn(d, after: number, spec: spec) { $0 > 0.4 && $0 < 2 }
    }

    func testSeekWhilePlayingAndWhilePaused() throws {
        let spec = ClipSpec(width: 640, height: 480, fps: 30, seconds: 6)
        let control = PlaybackControl()
        let d = try PaneDriver(Clips.make(spec), control: control)
        for _ in 0..<10 { try d.refresh() }   // frames 0...4
        control.seek(to: 2.0)
        while (d.shown.last?.number ?? 0) < 60 && d.k < 600 { try d.refresh() }
        let numbers = d.shown.compactMap(\.number)
        let jump = try XCTUnwrap(numbers.firstIndex { $0 >= 40 })
        XCTAssertEqual(numbers[jump], 60, "seek to 2.0 s at 30 fps lands on frame 60: \(numbers)")
        XCTAssertLessThan(numbers[jump - 1], 30)
        XCTAssertEqual(numbers[jump...].first, 60)

        control.pause()
        try eventually("pause", timeout: 5) { control.status.state == .paused }
        let before = d.shown.count
        control.seek(to: 1.0)
        try eventually("the frame sought to", timeout: 10) { d.source.queued.now == 1 }
        try d.refresh(settle: false)
        XCTAssertEqual(d.shown.count, before + 1)
        XCTAssertEqual(d.shown.last?.number, 30)
        for _ in 0..<12 { XCTAssertNil(try d.refresh(settle: false), "still paused after the seek") }
        XCTAssertEqual(control.status.state, .paused)
        XCTAssertEqual(control.status.position, 1.0, accuracy: 0.001)
        control.resume()
        while (d.shown.last?.number ?? 0) < 33 && d.k < 2000 { try d.refresh() }
        // On from the frame sought to, forward.
        let after = d.shown.compactMap(\.number)
        let resumed = Array(after[try XCTUnwrap(after.lastIndex(of: 30))...])
        XCTAssertEqual(Array(resumed.prefix(2)), [30, 31], "\(resumed)")
        XCTAssertEqual(resumed, resumed.sorted(), "\(resumed)")
        d.source.stop()
        try eventually("the stop", timeout: 10) { d.ended }
        XCTAssertEqual(d.ends.results.first?.end, .stopped)
    }

    /// A seek and a resume sent together while paused: it plays on, and its state says so.
    func testSeekThenResumeWhilePausedSaysPlaying() throws {
        let spec = ClipSpec(width: 640, height: 480, fps: 30, seconds: 6)
        let control = PlaybackControl()
        let d = try PaneDriver(Clips.make(spec), control: control)
        for _ in 0..<10 { try d.refresh() }
        control.pause()
        try eventually("pause", timeout: 5) { control.status.state == .paused }
        control.seek(to: 1.0)
        control.resume()
        while (d.shown.last?.number ?? 0) < 40 && d.k < 2000 { try d.refresh() }
        XCTAssertEqual(d.shown.last?.number, 40)
        try eventually("playing", timeout: 5) { control.status.state == .playing }
        d.source.stop()
        try eventually("the stop", timeout: 10) { d.ended }
    }

    /// One frame a second: a stop that waited for the next frame would take about 1 s; a
    /// prompt one is far below half of that even on a loaded machine.
    func testStopEndsPromptly() throws {
        let control = PlaybackControl()
        let d = try PaneDriver(Clips.make(ClipSpec(width: 640, height: 480, fps: 1, seconds: 6, gop: 1)), control: control)
        try d.refresh()
        try d.settle()   // the producer waits for the display with frames 1 and 2 queued
        let t0 = MonotonicClock.now()
        control.stop()
        try eventually("onEnd", timeout: 5, interval: 0.002) { d.ended }
        XCTAssertLessThan(MonotonicClock.now() - t0, 0.5, "a frame is due every second; stop must not wait for it")
        XCTAssertEqual(d.ends.results.map(\.end), [.stopped])
    }
}
