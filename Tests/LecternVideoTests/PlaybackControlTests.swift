import Dispatch
import Foundation
import LecternCore
import LecternTestSupport
import LecternVideo
import XCTest

/// The remote control of a playback: pause, seek, stop, loop. Time that passes while paused
/// passes on the stepped virtual clock (no test sleeps to prove that nothing happens); one
/// live twin checks the same pause on the real clock.
final class PlaybackControlTests: XCTestCase {
    let mode = DisplayMode.fullHD

    /// A play on another thread (the service plays on its stage's): its output, and its result
    /// once it is over.
    final class BackgroundPlay: @unchecked Sendable {
        let out: TestOutput
        private let done = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var _result: PlaybackResult?

        init(_ path: String, mode: DisplayMode, control: PlaybackControl, clock: PlaybackClock) throws {
            let d = try ClipDecoder(path: path)
            out = TestOutput(mode: mode, clock: clock)
            let rect = Fit.rect(for: d.info.shape, width: mode.width, height: mode.height)
            out.reader = { Reader.number($0, rect: rect) }
            let out = self.out
            Thread.detachNewThread { [self] in
                let r = ClipPlayback.play(d, on: out, control: control, clock: clock)
                d.close()
                lock.lock(); _result = r; lock.unlock()
                done.signal()
            }
        }

        var isFinished: Bool { lock.lock(); defer { lock.unlock() }; return _result != nil }

        /// The result, waiting for it (on the event) up to `timeout` seconds; nil if the play
        /// is still going then.
        func result(timeout: Double = 15) -> PlaybackResult? {
            guard done.wait(timeout: .now() + timeout) == .success else { return nil }
            done.signal()   // for another call
            lock.lock(); defer { lock.unlock() }
            return _result
        }
    }

    func testPauseHoldsTheFrameAndResumeGoesOn() throws {
        let spec = ClipSpec(width: 640, height: 480, fps: 30, seconds: 2)
        let clock = VirtualClock(stepped: true)
        let control = PlaybackControl()
        let play = try BackgroundPlay(Clips.make(spec), mode: mode, control: control, clock: clock)
        let out = play.out
        try clock.run("15 frames") { out.presentCount >= 15 }
        control.pause()   // taken between frames, or when the player wakes from its sleep on the clock
        try clock.run("the pause") { control.status.state == .paused }
        let held = out.presentCount
        let number = try XCTUnwrap(out.shown.last?.number)
        XCTAssertEqual(control.status.position, Double(number) / 30, accuracy: 0.001)
        // Ten seconds pass while paused (far past the clip's end), refresh by refresh: nothing.
        clock.pass(10, step: mode.frameInterval)
        XCTAssertEqual(out.presentCount, held, "presented while paused")
        XCTAssertEqual(Reader.number(out.readBack(), rect: PixelRect(x: 240, y: 0, width: 1440, height: 1080)), number)
        control.resume()
        try clock.run("the end of the clip") { play.isFinished }
        try assertPlayedOn(play, after: number, spec: spec) { $0 >= 10 && $0 < 10.2 }
    }

    /// The live twin of the test above: the same pause on the real clock, against the real
    /// scheduling of a loaded machine.
    func testPauseHoldsTheFrameOnTheRealClock() throws {
        let spec = ClipSpec(width: 640, height: 480, fps: 30, seconds: 2)
        let control = PlaybackControl()
        let play = try BackgroundPlay(Clips.make(spec), mode: mode, control: control, clock: MonotonicPlaybackClock())
        let out = play.out
        try eventually("15 frames", timeout: 3, interval: 0.005) { out.presentCount >= 15 }
        control.pause()
        try eventually("the pause", timeout: 3, interval: 0.005) { control.status.state == .paused }
        let held = out.presentCount
        let number = try XCTUnwrap(out.shown.last?.number)
        XCTAssertEqual(control.status.position, Double(number) / 30, accuracy: 0.001)
        // The behaviour under test, not synchronisation: real time passes while paused (12
        // frames' worth) and nothing is presented. The virtual-clock test above is exact.
        Thread.sleep(forTimeInterval: 0.4)
        XCTAssertEqual(out.presentCount, held, "presented while paused")
        XCTAssertEqual(Reader.number(out.readBack(), rect: PixelRect(x: 240, y: 0, width: 1440, height: 1080)), number)
        control.resume()
        try assertPlayedOn(play, after: number, spec: spec) { $0 > 0.4 && $0 < 2 }
    }

    /// After a pause on frame `number` and a resume: the play ended, nothing was skipped across
    /// the pause (the next frame came next, `held` says how long after), every frame was shown
    /// or (a stall of the machine) dropped.
    private func assertPlayedOn(
        _ play: BackgroundPlay, after number: Int, spec: ClipSpec, held: (Double) -> Bool,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let out = play.out
        let result = try XCTUnwrap(play.result(), file: file, line: line)
        XCTAssertEqual(result.end, .ended, file: file, line: line)
        let numbers = out.shown.compactMap { $0.number }
        XCTAssertEqual(numbers.count, out.shown.count, file: file, line: line)
        let i = try XCTUnwrap(numbers.firstIndex(of: number), file: file, line: line)
        XCTAssertEqual(numbers[i + 1], number + 1, file: file, line: line)
        let gap = out.shown[i + 1].time - out.shown[i].time
        XCTAssertTrue(held(gap), "held for \(gap) s", file: file, line: line)
        XCTAssertEqual(result.status.presented + result.status.dropped, spec.frameCount, file: file, line: line)
        XCTAssertEqual(result.status.state, .stopped, file: file, line: line)
    }

    func testSeekWhilePlayingAndWhilePaused() throws {
        let spec = ClipSpec(width: 640, height: 480, fps: 30, seconds: 6)
        let clock = VirtualClock(stepped: true)
        let control = PlaybackControl()
        let play = try BackgroundPlay(Clips.make(spec), mode: mode, control: control, clock: clock)
        let out = play.out
        try clock.run("frames") { out.presentCount >= 5 }
        control.seek(to: 2.0)
        try clock.run("the seek") { (out.shown.last?.number ?? 0) >= 60 }
        let numbers = out.shown.compactMap { $0.number }
        let jump = try XCTUnwrap(numbers.firstIndex { $0 >= 40 })
        XCTAssertEqual(numbers[jump], 60, "seek to 2.0 s at 30 fps lands on frame 60: \(numbers)")
        XCTAssertLessThan(numbers[jump - 1], 30)

        control.pause()
        try clock.run("pause") { control.status.state == .paused }
        let before = out.presentCount
        control.seek(to: 1.0)
        try clock.run("the frame sought to") { out.presentCount == before + 1 && control.status.position == 1.0 }
        XCTAssertEqual(out.shown.last?.number, 30)
        clock.pass(0.2, step: mode.frameInterval)
        XCTAssertEqual(out.presentCount, before + 1, "still paused after the seek")
        XCTAssertEqual(control.status.state, .paused)
        XCTAssertEqual(control.status.position, 1.0, accuracy: 0.001)
        control.resume()
        try clock.run("playing again") { (out.shown.last?.number ?? 0) >= 33 }
        // On from the frame sought to: the first after the resume is the next one (it anchors
        // the timeline, so it is never dropped); the ones after it go forward.
        let after = out.shown.compactMap { $0.number }
        let resumed = Array(after[try XCTUnwrap(after.lastIndex(of: 30))...])
        XCTAssertEqual(Array(resumed.prefix(2)), [30, 31], "\(resumed)")
        XCTAssertEqual(resumed, resumed.sorted(), "\(resumed)")
        control.stop()
        try clock.run("the stop") { play.isFinished }
        let result = try XCTUnwrap(play.result())
        XCTAssertEqual(result.end, .stopped)
    }

    /// A seek and a resume sent together while paused: the player plays on, and its state
    /// says so (it used to say paused forever while the position advanced).
    func testSeekThenResumeWhilePausedSaysPlaying() throws {
        let spec = ClipSpec(width: 640, height: 480, fps: 30, seconds: 6)
        let clock = VirtualClock(stepped: true)
        let control = PlaybackControl()
        let play = try BackgroundPlay(Clips.make(spec), mode: mode, control: control, clock: clock)
        let out = play.out
        try clock.run("frames") { out.presentCount >= 5 }
        control.pause()
        try clock.run("pause") { control.status.state == .paused }
        control.seek(to: 1.0)
        control.resume()
        try clock.run("playing on from the seek") { (out.shown.last?.number ?? 0) >= 40 }
        XCTAssertEqual(control.status.state, .playing)
        control.stop()
        try clock.run("the stop") { play.isFinished }
    }

    func testStopEndsPromptly() throws {
        let control = PlaybackControl()
        // One frame a second: a stop that waited for the next frame would take about 1 s; a
        // prompt one is far below half of that even on a loaded machine.
        let play = try BackgroundPlay(
            Clips.make(ClipSpec(width: 640, height: 480, fps: 1, seconds: 6, gop: 1)),
            mode: mode, control: control, clock: MonotonicPlaybackClock())
        let out = play.out
        try eventually("frames", timeout: 3, interval: 0.005) { out.presentCount >= 1 }
        let t0 = Date()
        control.stop()
        let result = try XCTUnwrap(play.result())
        XCTAssertEqual(result.end, .stopped)
        XCTAssertLessThan(Date().timeIntervalSince(t0), 0.5, "a frame is due every second; stop must not wait for it")
        XCTAssertLessThan(out.presentCount, 3)
    }

    func testLoopStartsAgainOnTime() throws {
        let spec = ClipSpec(width: 640, height: 480, fps: 25, seconds: 0.6, gop: 5)
        let clock = VirtualClock()
        let control = PlaybackControl()
        let n = spec.frameCount
        let d = try ClipDecoder(path: Clips.make(spec))
        defer { d.close() }
        let out = TestOutput(mode: mode, clock: clock)
        let rect = Fit.rect(for: d.info.shape, width: 1920, height: 1080)
        out.reader = { Reader.number($0, rect: rect) }
        out.inspect = { _ in if out.presentCount + 1 >= 2 * n + 5 { control.stop() } }
        let result = ClipPlayback.play(d, on: out, loop: true, control: control, clock: clock)
        XCTAssertEqual(result.end, .stopped)
        let shown = out.shown
        XCTAssertEqual(shown.map { $0.number }, (0..<(2 * n + 5)).map { $0 % n })
        // Continuous time across the loop: shown k frames in is at k / 25 s.
        for (k, s) in shown.enumerated() {
            XCTAssertEqual(s.time - shown[0].time, Double(k) / 25, accuracy: mode.frameInterval / 2 + 1e-6, "frame \(k)")
        }
        XCTAssertEqual(result.status.dropped, 0)
        XCTAssertTrue(result.status.loop)
    }
}
