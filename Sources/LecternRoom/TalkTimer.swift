import LecternProtocol

/// The talk timer every device shows (pdfpc's timer): time talked, a count-down from the
/// talk's length or to its end time, a warning in the last minutes, pause and reset.
/// Pure: every call takes the wall-clock time (seconds since 1970), which the room gets
/// from the clock its shell injects; a value, saved with the room's state so a restart of
/// the service neither stops nor resets a talk.
public struct TalkTimer: Codable, Equatable, Sendable {
    public var mode: TimerSnapshot.Mode = .elapsed
    /// countdown: the talk's length.
    public var durationMs: UInt64?
    /// endTime: when the talk ends (ms since 1970).
    public var endsAtMs: UInt64?
    public var warnMinutes: Int
    /// Talked before the current run.
    public var accumulatedMs: UInt64 = 0
    /// When the current run started (wall seconds); nil while paused or not started.
    public var runningSince: Double?

    public init(warnMinutes: Int = 5) { self.warnMinutes = warnMinutes }

    public var running: Bool { runningSince != nil }

    public func elapsedMs(at wall: Double) -> UInt64 {
        guard let s = runningSince else { return accumulatedMs }
        return accumulatedMs + UInt64(max(0, (wall - s) * 1000))
    }

    /// Time left (negative: over), or nil when counting up.
    public func remainingMs(at wall: Double) -> Int64? {
        switch mode {
        case .elapsed: return nil
        case .countdown: return Int64(durationMs ?? 0) - Int64(elapsedMs(at: wall))
        case .endTime: return Int64(endsAtMs ?? 0) - Int64(wall * 1000)
        }
    }

    /// In the last `warnMinutes` or over time (a talk not started yet doesn't warn in
    /// count-down; an end time does, it comes whether or not the talk started).
    public func warning(at wall: Double) -> Bool {
        guard let r = remainingMs(at: wall) else { return false }
        if mode == .countdown && !running && accumulatedMs == 0 { return false }
        return r <= Int64(warnMinutes) * 60_000
    }

    public mutating func start(at wall: Double) {
        if runningSince == nil { runningSince = wall }
    }

    public mutating func pause(at wall: Double) {
        accumulatedMs = elapsedMs(at: wall)
        runningSince = nil
    }

    /// Back to zero, stopped; the mode, length and end time stay.
    public mutating func reset() {
        accumulatedMs = 0
        runningSince = nil
    }

    /// Applies a timer command; throws `badTimer` for a length or end time out of range.
    public mutating func apply(_ c: TimerCommand, at wall: Double) throws(LecternError) {
        if c.warnMinutes != 0xFFFF {
            guard ConsoleLimits.warnMinutes.contains(Int(c.warnMinutes)) else {
                throw .badTimer("The warning comes 0 to \(ConsoleLimits.warnMinutes.upperBound) minutes before the end.")
            }
            warnMinutes = Int(c.warnMinutes)
        }
        switch c.mode {
        case .keep: break
        case .elapsed:
            mode = .elapsed
        case .countdown:
            guard c.value >= ConsoleLimits.minTimerMs, c.value <= ConsoleLimits.maxTimerMs else { throw .badTimer("A talk lasts from a second to 24 hours.") }
            mode = .countdown
            durationMs = c.value
        case .endTime:
            let nowMs = UInt64(max(0, wall * 1000))
            guard c.value > nowMs, c.value - nowMs <= ConsoleLimits.maxTimerMs else {
                throw .badTimer("The end time must be in the next 24 hours.")
            }
            mode = .endTime
            endsAtMs = c.value
        }
        switch c.action {
        case .start: start(at: wall)
        case .pause: pause(at: wall)
        case .reset: reset()
        case .set: break
        }
    }

    public func snapshot(at wall: Double) -> TimerSnapshot {
        TimerSnapshot(
            mode: mode, running: running, elapsedMs: elapsedMs(at: wall),
            durationMs: mode == .countdown ? durationMs : nil, endsAtMs: mode == .endTime ? endsAtMs : nil,
            remainingMs: remainingMs(at: wall), warning: warning(at: wall), warnMinutes: warnMinutes,
            serverTimeMs: UInt64(max(0, wall * 1000)))
    }
}
