import Foundation
import LecternCore

/// Where playback stands, for the service to report (`screen.clip` in the state).
public struct PlaybackStatus: Equatable, Sendable {
    public enum State: String, Equatable, Sendable { case playing, paused, stopped }
    public var state: State = .playing
    /// Clip time of the frame on screen, seconds.
    public var position: Double = 0
    public var duration: Double = 0
    public var loop = false
    public var presented = 0
    public var dropped = 0
    public var decodeErrors = 0
    public init() {}
}

/// Why `ClipPlayback.play` returned.
public enum PlaybackEnd: Equatable, Sendable {
    /// The clip played to its end.
    case ended
    /// `stop()` was called.
    case stopped
    /// The clip couldn't go on (damaged past a point, or the output failed); what decoded
    /// was shown. The message says why, for the log.
    case failed(String)
}

public struct PlaybackResult: Equatable, Sendable {
    public var end: PlaybackEnd
    public var status: PlaybackStatus
}

/// The time source of a playback: monotonic seconds and a way to wait. Tests may pass a
/// virtual clock that a fake output advances at each present.
public protocol PlaybackClock: AnyObject {
    func now() -> Double
    func sleep(until deadline: Double)
}

/// CLOCK_MONOTONIC, the default.
public final class MonotonicPlaybackClock: PlaybackClock {
    public init() {}
    public func now() -> Double { MonotonicClock.now() }
    public func sleep(until deadline: Double) { MonotonicClock.sleep(until: deadline) }
}

/// The remote control of one playback: other threads (the service's connections) call
/// pause/resume/seek/stop; the playback loop picks the commands up between frames (and
/// while it waits for a frame's refresh, within 10 ms). Pausing blocks the loop on a
/// condition variable. `status` can be read from any thread. One control per play: a stop
/// stays stopped.
public final class PlaybackControl: @unchecked Sendable {
    private let cond = NSCondition()
    private var wantPause = false
    private var wantStop = false
    private var seekTarget: Double?
    private var loopOverride: Bool?
    private var commands = 0
    private var _status = PlaybackStatus()
    private var onChange: (@Sendable (PlaybackStatus) -> Void)?

    /// `onChange` is called (on the playback thread) when the state changes, after a seek,
    /// and about once a second while playing.
    public init(onChange: (@Sendable (PlaybackStatus) -> Void)? = nil) { self.onChange = onChange }

    public func pause() { command { $0.wantPause = true } }
    public func resume() { command { $0.wantPause = false } }
    /// Seconds from the start; lands on the frame nearest that time (works while paused:
    /// the frame is shown and playback stays paused).
    public func seek(to seconds: Double) { command { $0.seekTarget = seconds } }
    public func stop() { command { $0.wantStop = true } }
    /// Loop from now on, or end at the end (the play's `loop` until this is called).
    public func setLoop(_ on: Bool) { command { $0.loopOverride = on } }

    public var status: PlaybackStatus { cond.lock(); defer { cond.unlock() }; return _status }

    private func command(_ change: (PlaybackControl) -> Void) {
        cond.lock(); change(self); commands += 1; cond.broadcast(); cond.unlock()
    }

    // MARK: the loop's side

    struct Pending { var stop: Bool; var seek: Double?; var pause: Bool; var serial: Int }

    func pending() -> Pending {
        cond.lock(); defer { cond.unlock() }
        return Pending(stop: wantStop, seek: seekTarget, pause: wantPause, serial: commands)
    }

    func takeSeek() -> Double? {
        cond.lock(); defer { cond.unlock() }
        let t = seekTarget; seekTarget = nil; return t
    }

    var serial: Int { cond.lock(); defer { cond.unlock() }; return commands }

    /// The loop setting asked for during the play, if any.
    var loopAsked: Bool? { cond.lock(); defer { cond.unlock() }; return loopOverride }

    /// Blocks while paused with nothing else asked.
    func waitWhilePaused() {
        cond.lock()
        while wantPause && !wantStop && seekTarget == nil { cond.wait() }
        cond.unlock()
    }

    func update(notify: Bool = false, _ change: (inout PlaybackStatus) -> Void) {
        cond.lock()
        let before = _status
        change(&_status)
        let now = _status
        cond.unlock()
        if notify || before.state != now.state, let onChange { onChange(now) }
    }
}

/// Plays a clip on an output, paced to its refresh, on the caller's thread (the service's
/// stage). Returns when the clip ends, is stopped, or can't go on; the caller then shows
/// what was on screen before.
public enum ClipPlayback {
    /// - Parameters:
    ///   - rect: where the picture goes; by default `Fit.rect` of the clip's shape in the
    ///     output's mode. Everything outside it is filled with `background` at every frame.
    ///   - loop: start again at the end (a damaged clip is not looped).
    public static func play(
        _ decoder: ClipDecoder, on output: Output, rect: PixelRect? = nil,
        background: RGB = .black, loop: Bool = false,
        control: PlaybackControl = PlaybackControl(),
        clock: PlaybackClock = MonotonicPlaybackClock()
    ) -> PlaybackResult {
        var player = Player(
            decoder: decoder, output: output, background: background, loop: loop,
            control: control, clock: clock, rect: rect)
        let end = player.run()
        control.update(notify: true) {
            $0.state = .stopped
            $0.presented = player.pacer.presented; $0.dropped = player.pacer.dropped
            $0.decodeErrors = decoder.decodeErrors
        }
        return PlaybackResult(end: end, status: control.status)
    }

    /// Everything of `frame` outside `rect` becomes `color` (the back buffer holds an older
    /// picture): only the bars are written. Playback does it after scaling, so the bars are
    /// exact whatever the scaler wrote.
    public static func fillBars(_ frame: Frame, around rect: PixelRect, _ color: RGB) {
        let w = frame.width, h = frame.height
        frame.fill(PixelRect(x: 0, y: 0, width: w, height: rect.y), color)
        frame.fill(PixelRect(x: 0, y: rect.maxY, width: w, height: h - rect.maxY), color)
        frame.fill(PixelRect(x: 0, y: rect.y, width: rect.x, height: rect.height), color)
        frame.fill(PixelRect(x: rect.maxX, y: rect.y, width: w - rect.maxX, height: rect.height), color)
    }
}

private struct Player {
    let decoder: ClipDecoder
    let output: Output
    let background: RGB
    let loop: Bool
    let control: PlaybackControl
    let clock: PlaybackClock
    let rect: PixelRect
    let period: Double
    var pacer: FramePacer
    /// The refresh grid, from the times presents return.
    var refreshes: RefreshGrid
    /// When the last present became visible (on the estimated grid).
    var lastRefresh: Double?
    /// How long drawing a frame typically takes (a moving average: one slow frame must not
    /// make the loop predict misses, and so drop, for the frames after it).
    var drawEstimate = 0.004
    var lastReport = 0.0

    init(
        decoder: ClipDecoder, output: Output, background: RGB, loop: Bool, control: PlaybackControl,
        clock: PlaybackClock, rect: PixelRect?
    ) {
        self.decoder = decoder; self.output = output; self.background = background; self.loop = loop
        self.control = control; self.clock = clock
        let mode = output.mode
        self.rect = rect ?? Fit.rect(for: decoder.info.shape, width: mode.width, height: mode.height)
        period = mode.frameInterval
        pacer = FramePacer(refreshPeriod: period)
        refreshes = RefreshGrid(period: period)
    }

    /// The earliest refresh a present started now can make.
    func nextRefresh() -> Double {
        let now = clock.now()
        guard let last = lastRefresh else { return now + max(drawEstimate, period / 2) }
        let k = max(1, ((now + drawEstimate - last) / period).rounded(.up))
        return last + k * period
    }

    mutating func run() -> PlaybackEnd {
        let info = decoder.info
        control.update(notify: true) {
            $0 = PlaybackStatus(); $0.state = .playing; $0.duration = info.duration; $0.loop = loop
        }
        var held: DecodedFrame?   // decoded, not yet shown
        var shownThisPass = 0
        var lastSeen: (time: Double, duration: Double)?   // shown or dropped
        while true {
            let cmd = control.pending()
            if cmd.stop { return .stopped }
            if cmd.seek != nil, let t = control.takeSeek() {
                held = nil
                do { try decoder.seek(to: t) } catch { return .failed("seek to \(t) s failed: \(error)") }
                pacer.reanchor()
                if cmd.pause {
                    // Show the frame sought to, and stay paused.
                    do {
                        if let f = try decoder.nextFrame() { try present(f) }
                    } catch { return .failed("\(error)") }
                }
                // A resume that came in with the seek is obeyed now: the state says so too.
                let paused = control.pending().pause
                control.update(notify: true) {
                    $0.position = max(0, min(t, info.duration > 0 ? info.duration : t))
                    $0.state = paused ? .paused : .playing
                }
                continue
            }
            if cmd.pause {
                control.update { $0.state = .paused }
                control.waitWhilePaused()
                pacer.reanchor()
                if !control.pending().pause { control.update { $0.state = .playing } }
                continue
            }
            // Playing on (also when a seek, not this branch, took the loop out of its pause).
            if control.status.state != .playing { control.update { $0.state = .playing } }

            let frame: DecodedFrame
            do {
                if let h = held {
                    frame = h; held = nil
                } else if let f = try decoder.nextFrame() {
                    frame = f
                } else {
                    if let why = decoder.readError { return .failed("the clip is damaged: \(why)") }
                    // Loop as asked during the play (clip-loop), else as the play began.
                    let looping = control.loopAsked ?? loop
                    control.update { $0.loop = looping }
                    if looping && shownThisPass > 0 {
                        try decoder.seek(to: 0)
                        if let last = lastSeen { pacer.shift(by: last.time + last.duration) }
                        shownThisPass = 0
                        continue
                    }
                    guard shownThisPass > 0 || pacer.presented > 0 else { return .failed("no frame of the clip could be decoded") }
                    // The last frame stays its time on screen: what comes next (the slide
                    // again) lands when the clip is over. A command meanwhile is obeyed (a
                    // seek back plays on).
                    if let last = lastSeen, let origin = pacer.origin,
                        !wait(until: origin + last.time + last.duration - period + 0.001)
                    {
                        continue
                    }
                    return .ended
                }
            } catch { return .failed("\(error)") }

            lastSeen = (frame.time, frame.duration)
            switch pacer.decide(time: frame.time, duration: frame.duration, nextRefresh: nextRefresh()) {
            case .drop:
                control.update { $0.dropped = pacer.dropped }
                continue
            case .show(let at):
                // Wait until just after the refresh before the one it is due at, checking
                // for commands; then draw, and the present lands on `at`.
                if at - period > clock.now() {
                    if !wait(until: at - period + 0.001) { held = frame; continue }
                }
                do { try present(frame) } catch { return .failed("the output failed: \(error)") }
                shownThisPass += 1
            }
        }
    }

    /// Sleeps until `deadline` in slices; false when a command came in meanwhile.
    func wait(until deadline: Double) -> Bool {
        let serial = control.serial
        while true {
            let now = clock.now()
            if now >= deadline { return true }
            clock.sleep(until: min(deadline, now + 0.010))
            if control.serial != serial { return false }
        }
    }

    mutating func present(_ frame: DecodedFrame) throws {
        let t0 = clock.now()
        var drawn = t0
        let rect = self.rect, background = self.background
        try output.present { back in
            try frame.draw(into: back, rect: rect)
            ClipPlayback.fillBars(back, around: rect, background)
            drawn = clock.now()
        }
        let refresh = refreshes.observe(clock.now())
        let took = drawn - t0
        drawEstimate = drawEstimate * 0.9 + min(took, period) * 0.1
        lastRefresh = refresh
        pacer.didPresent(time: frame.time, at: refresh)
        let report = refresh - lastReport >= 1
        if report { lastReport = refresh }
        let p = pacer
        control.update(notify: report) {
            $0.position = frame.time; $0.presented = p.presented; $0.dropped = p.dropped
            $0.decodeErrors = decoder.decodeErrors
        }
    }
}

/// Where the output's refreshes fall, from the times its presents return: each is a refresh
/// plus some wake-up latency, so the grid is put through the earliest of the recent returns
/// (a window of 32, so it follows a display clock that drifts against the monotonic one, and
/// starts again after a gap of more than a second). A late wake-up then doesn't move the
/// timeline. A return up to a quarter period before the grid counts as that refresh.
struct RefreshGrid {
    let period: Double
    private var anchor = 0.0
    private var last = -Double.infinity
    /// Recent returns' offsets from the grid through `anchor` (the smallest is 0).
    private var offsets: [Double] = []

    init(period: Double) { self.period = period }

    /// A present returned at `t`: the refresh it showed at, on the grid.
    mutating func observe(_ t: Double) -> Double {
        defer { last = t }
        if t - last > 1 || offsets.isEmpty { anchor = t; offsets = [0]; return t }
        let q = period / 4
        let k = ((t - anchor + q) / period).rounded(.down)
        offsets.append(t - (anchor + k * period))
        if offsets.count > 32 { offsets.removeFirst() }
        let m = offsets.min()!
        if m != 0 {
            anchor += m
            for i in offsets.indices { offsets[i] -= m }
        }
        return anchor + ((t - anchor + q) / period).rounded(.down) * period
    }
}
