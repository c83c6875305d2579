import LecternVideo
import XCTest

/// The audio clock and the pacing following it, in memory: a simulated sound device that
/// plays at its own rate (a little fast or slow against the monotonic clock, as real cards
/// do), reported the way ALSA's delay is (in steps of a period), and a 60 Hz display.
final class AudioClockTests: XCTestCase {
    /// A device that started playing clip time `start` at monotonic `t0`, at `rate`× real time,
    /// written ahead by up to `buffer` seconds in periods of `period` seconds.
    struct Device {
        var t0 = 10.0
        var start = 0.0
        var rate = 1.0
        var buffer = 0.100
        var period = 0.0213
        /// Clip time heard at monotonic `t`.
        func heard(at t: Double) -> Double { start + max(0, t - t0) * rate }
        /// What the shell would report at `t`: the end of what was written (whole periods,
        /// the buffer kept full) and what is queued.
        func report(at t: Double) -> (end: Double, queued: Double) {
            let h = heard(at: t)
            let end = start + ((h - start + buffer) / period).rounded(.down) * period
            return (end, end - h)
        }
    }

    func testTheClockFollowsTheDeviceWithinAMillisecond() {
        for rate in [1.0, 1.002, 0.998] {
            let d = Device(rate: rate)
            var clock = AudioClock()
            var worst = 0.0
            var t = d.t0
            while t < d.t0 + 60 {
                let r = d.report(at: t)
                clock.report(end: r.end, queued: r.queued, at: t)
                if t > d.t0 + 1 { worst = max(worst, abs(clock.position(at: t + 0.005)! - d.heard(at: t + 0.005))) }
                t += d.period
            }
            XCTAssertLessThan(worst, 0.012, "rate \(rate): the clock is off by \(worst) s")
        }
    }

    func testPauseHoldsTheClockAndResumeWaitsForTheNextReport() {
        var clock = AudioClock()
        clock.report(end: 1.1, queued: 0.1, at: 5)
        XCTAssertEqual(clock.position(at: 5.5)!, 1.5, accuracy: 1e-9)
        clock.pause(at: 5.5)
        XCTAssertEqual(clock.position(at: 9)!, 1.5, accuracy: 1e-9, "the clock ran on while paused")
        clock.resume()
        XCTAssertNil(clock.position(at: 9), "resumed: nothing is known until the device reports")
        clock.report(end: 1.6, queued: 0.1, at: 9.01)
        XCTAssertEqual(clock.position(at: 9.01)!, 1.5, accuracy: 1e-9)
        clock.reset()   // a seek
        XCTAssertNil(clock.origin(at: 9.1))
        clock.report(end: 4.1, queued: 0.1, at: 9.2)
        XCTAssertEqual(clock.position(at: 9.3)!, 4.1, accuracy: 1e-9)
        XCTAssertEqual(clock.origin(at: 9.3)!, 9.3 - 4.1, accuracy: 1e-9)
    }

    /// The bar: every frame shown within ±40 ms of the sound, over a minute, with a
    /// device 0.2 % fast or slow (the picture drops or holds frames to follow it) — where the
    /// pacer alone, anchored at the first frame, drifts past it.
    func testFramesFollowTheSoundWithin40msOnADriftingDevice() {
        for rate in [1.002, 0.998] {
            let followed = offsets(rate: rate, follow: true)
            XCTAssertLessThanOrEqual(followed.worst, 0.040, "rate \(rate): a frame \(followed.worst) s off the sound")
            XCTAssertGreaterThan(followed.shown, 1400)
            let alone = offsets(rate: rate, follow: false)
            XCTAssertGreaterThan(alone.worst, 0.040, "rate \(rate): without the audio clock the picture should drift")
        }
    }

    /// Plays 60 s of 25 fps frames on a 60 Hz grid, as the display loop takes them from a clip
    /// source's queue (three decoded ahead); the worst |frame time − clip time heard when it
    /// went on screen|.
    func offsets(rate: Double, follow: Bool) -> (worst: Double, shown: Int) {
        let refresh = 1.0 / 60, frame = 0.04
        let d = Device(rate: rate)
        var clock = AudioClock()
        var pacing = ClipPacing()
        var lastReport = -1.0
        var worst = 0.0
        var next = 0   // the first frame still queued
        var k = 1
        while Double(next) * frame < 60 {
            let at = d.t0 + Double(k) * refresh
            let now = at - 0.004   // the loop takes a little before the refresh
            while lastReport + d.period <= now {
                lastReport = lastReport < 0 ? now : lastReport + d.period
                let r = d.report(at: lastReport)
                clock.report(end: r.end, queued: r.queued, at: lastReport)
            }
            if follow, let o = clock.origin(at: now) { pacing.follow(origin: o) }
            let queued = (next..<(next + 3)).map { Double($0) * frame }
            if case .show(let i) = pacing.take(queued: queued, refresh: at, period: refresh) {
                pacing.presented(at: at)
                worst = max(worst, abs(queued[i] - d.heard(at: at)))
                next += i + 1
            }
            k += 1
        }
        return (worst, pacing.presented)
    }
}
