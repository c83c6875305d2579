/// Decides when each decoded frame goes on screen: pure arithmetic on monotonic times, no
/// threads, no clocks of its own (the playback loop passes the times in).
///
/// The clip's timeline is anchored to the refresh at which a frame was first shown
/// (`origin` = that refresh − the frame's time); frame at time t is due at `origin + t` and is
/// shown at the refresh nearest to that. A frame that can only be shown after the refresh
/// where the next frame is due is dropped: playback keeps time by dropping, never drifts.
/// A timestamp jump (damaged or odd streams) or being more than `maxLag` behind re-anchors
/// instead, so playback can't freeze waiting for, or dropping towards, a time far away.
public struct FramePacer: Equatable, Sendable {
    public enum Decision: Equatable, Sendable {
        /// Present so the frame is on screen at the refresh at this monotonic time.
        case show(at: Double)
        /// Too late: a newer frame is due by the time this one could be shown.
        case drop
    }

    /// Seconds between refreshes.
    public let refreshPeriod: Double
    /// How far a frame may be early or late before the timeline is re-anchored.
    public var maxLag: Double
    /// Monotonic time at which clip time 0 is on screen; nil until a frame has been shown
    /// since the start, a pause or a seek.
    public private(set) var origin: Double?
    public private(set) var presented = 0
    public private(set) var dropped = 0
    /// Times the timeline was re-anchored because of a jump or a long stall.
    public private(set) var reanchors = 0

    public init(refreshPeriod: Double, maxLag: Double = 1.0) {
        precondition(refreshPeriod > 0)
        self.refreshPeriod = refreshPeriod
        self.maxLag = maxLag
    }

    /// For the frame at clip time `time` that lasts `duration`, when `nextRefresh` is the
    /// earliest refresh a present started now can make.
    public mutating func decide(time: Double, duration: Double, nextRefresh: Double) -> Decision {
        let p = refreshPeriod
        guard let o = origin else { return .show(at: nextRefresh) }
        let due = o + time
        if due - nextRefresh > maxLag || nextRefresh - due > maxLag {
            origin = nil; reanchors += 1
            return .show(at: nextRefresh)
        }
        // The refresh nearest the due time, not before the earliest possible.
        let k = max(0, ((due - nextRefresh) / p).rounded())
        if k == 0 {
            // The next frame is due at or before the earliest refresh we can make: this one
            // would only push it back.
            let nextDue = due + max(duration, 0)
            if nextDue - nextRefresh < p / 2 && nextRefresh - due > p / 2 - 1e-9 {
                dropped += 1
                return .drop
            }
        }
        return .show(at: nextRefresh + k * p)
    }

    /// The frame at clip time `time` went on screen at the refresh at `refresh`; anchors the
    /// timeline when it isn't.
    public mutating func didPresent(time: Double, at refresh: Double) {
        presented += 1
        if origin == nil { origin = refresh - time }
    }

    /// After a pause or a seek: the next frame shown anchors the timeline again.
    public mutating func reanchor() { origin = nil }

    /// Moves the timeline on by `seconds` (looping: the clip's times start again at 0).
    public mutating func shift(by seconds: Double) { if let o = origin { origin = o + seconds } }

    /// With sound: the audio clock's timeline (`AudioClock.origin`) replaces the one
    /// anchored at the first frame, so frames follow what is heard (held when early,
    /// dropped when late). A change smaller than `tolerance` is ignored, so the picture's
    /// pace doesn't jitter with the clock's estimate.
    public mutating func follow(origin audio: Double, tolerance: Double = 0.002) {
        if let o = origin, abs(o - audio) <= tolerance { return }
        origin = audio
    }
}
