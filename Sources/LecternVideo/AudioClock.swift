/// The clip time the listener hears now, from what the audio shell reports: pure
/// arithmetic on monotonic times, no threads, no clock of its own (the player passes the
/// times in), like `ClipPacing`.
///
/// The sound device plays samples at its own rate; the shell reports, after each write,
/// the clip time just past the last sample written (`end`) and how much is still queued
/// in the device (`queued`, seconds, ALSA's delay). What is heard at that moment is
/// `end − queued`. Between reports the clock runs on at 1×; a report within `jitter` of
/// the prediction only nudges it (ALSA's delay moves in steps of a period), a further one
/// re-anchors it (a seek, an underrun, a device that runs fast or slow).
///
/// The picture follows it: `origin(at:)` is the monotonic time at which clip time 0 would
/// have been on screen, which `ClipPacing.follow` takes, so frames are shown when the
/// sound reaches them, dropped when it is past them and held when it isn't there yet.
public struct AudioClock: Equatable, Sendable {
    /// How far a report may be from the prediction and only nudge it.
    public var jitter: Double
    /// Clip time heard at monotonic `anchorTime`; nil until the first report after a
    /// start, seek or pause.
    public private(set) var anchorPosition: Double?
    public private(set) var anchorTime = 0.0
    public private(set) var paused = false
    /// Reports that moved the clock by more than `jitter`.
    public private(set) var reanchors = 0

    public init(jitter: Double = 0.010) { self.jitter = jitter }

    /// After writing samples up to clip time `end`, with `queued` seconds still to play in
    /// the device, at monotonic `now`.
    public mutating func report(end: Double, queued: Double, at now: Double) {
        let heard = end - max(0, queued)
        guard let predicted = position(at: now) else {
            anchorPosition = heard; anchorTime = now
            return
        }
        let error = heard - predicted
        if abs(error) > jitter {
            reanchors += 1
            anchorPosition = heard
        } else {
            anchorPosition = predicted + error * 0.1
        }
        anchorTime = now
    }

    /// The clip time heard at monotonic `now`; nil when nothing was reported since the
    /// last start, seek or pause.
    public func position(at now: Double) -> Double? {
        guard let p = anchorPosition else { return nil }
        return paused ? p : p + (now - anchorTime)
    }

    /// The monotonic time clip time 0 would have been heard (the picture's timeline).
    public func origin(at now: Double) -> Double? { position(at: now).map { now - $0 } }

    /// The device stopped (pause): the clock holds where it is.
    public mutating func pause(at now: Double) {
        if let p = position(at: now) { anchorPosition = p; anchorTime = now }
        paused = true
    }

    /// Playing again: the next report anchors it (the device restarts with an empty queue).
    public mutating func resume() {
        paused = false
        anchorPosition = nil
    }

    /// After a seek or a loop: nothing is known until the next report.
    public mutating func reset() { anchorPosition = nil }
}
