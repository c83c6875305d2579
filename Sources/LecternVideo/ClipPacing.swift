/// Which of a clip source's queued frames the display loop shows at a refresh: pure
/// arithmetic on monotonic times, no threads, no clock of its own (the display loop passes
/// the refresh times in, the producer the frames' times), like `AudioClock`.
///
/// Times are on the source's timeline: clip time plus what earlier passes of a loop lasted,
/// so a loop goes on without a jump. The timeline is anchored at the refresh at which a
/// frame was first taken (`origin` = that refresh − the frame's time), or follows the sound's
/// clock (`follow`). A frame is due at `origin + time`; at a refresh the frame taken is the
/// newest queued one due before the refresh's midpoint to the next (the refresh nearest its
/// due time), and the queued ones before it are dropped: a late display loop drops, it never
/// catches up. Nothing due: nil, the pane keeps its picture. Being more than `maxLag` early or
/// late (a stall, a damaged timestamp) re-anchors instead.
public struct ClipPacing: Equatable, Sendable {
    public enum Take: Equatable, Sendable {
        /// Nothing new is due: the pane keeps what it shows.
        case none
        /// Show queued frame `index`; the `index` frames before it are dropped.
        case show(index: Int)
    }

    /// How far a frame may be early or late before the timeline is re-anchored.
    public var maxLag: Double
    /// Monotonic time at which timeline time 0 is on screen; nil until a frame is taken after
    /// the start, a pause or a seek.
    public private(set) var origin: Double?
    /// The latest refresh the display loop asked about.
    public private(set) var lastRefresh: Double?
    public private(set) var refreshPeriod: Double?
    public private(set) var presented = 0
    public private(set) var dropped = 0
    public private(set) var reanchors = 0
    /// The timeline time of the frame last taken, while its present may still anchor the
    /// timeline (the first frame after an anchor).
    private var anchoring: Double?
    /// The refresh of the frame last taken while its present is not reported yet (the clip
    /// is not over before its last frame is counted).
    private var unreported: Double?

    public init(maxLag: Double = 1.0) { self.maxLag = maxLag }

    /// At the refresh at `refresh`, with frames queued at timeline `times` (rising).
    public mutating func take(queued times: [Double], refresh: Double, period: Double) -> Take {
        if let u = unreported, refresh > u { unreported = nil }   // a later refresh: its present is past
        lastRefresh = refresh
        refreshPeriod = period
        guard let first = times.first else { return .none }
        guard let o = origin, abs(o + first - refresh) <= maxLag else {
            if origin != nil { reanchors += 1 }
            origin = refresh - first
            anchoring = first
            unreported = refresh
            return .show(index: 0)
        }
        anchoring = nil
        var pick: Int?
        // A frame more than `maxLag` before the refresh (a timestamp jumping back) is not
        // taken for due: it re-anchors when it comes first, the frames before it shown.
        for (i, t) in times.enumerated() where o + t - refresh < period / 2 - 1e-9 && refresh - (o + t) <= maxLag { pick = i }
        guard let i = pick else { return .none }
        dropped += i
        unreported = refresh
        return .show(index: i)
    }

    /// The frame last taken went on the output at `time`: counted; the first frame after an
    /// anchor anchors the timeline at its real present.
    public mutating func presented(at time: Double) {
        presented += 1
        unreported = nil
        if let t = anchoring {
            origin = time - t
            anchoring = nil
        }
    }

    /// The producer decoded a frame at timeline `time` lasting `duration`: true when it is
    /// already over at the latest refresh (the one after it was due by then), so it need not
    /// be scaled. Counted as dropped.
    public mutating func isStale(time: Double, duration: Double) -> Bool {
        guard let o = origin, let r = lastRefresh, o + time + max(duration, 0) <= r + 1e-9 else { return false }
        dropped += 1
        return true
    }

    /// After the last frame, with `queued` frames still queued: true when the frame shown last
    /// has had its time on screen (what comes after lands when the clip is over), the clip
    /// ending at timeline time `end`.
    public func isOver(end: Double, queued: Int) -> Bool {
        guard queued == 0, unreported == nil else { return false }
        guard let o = origin, let r = lastRefresh else { return true }
        return r + (refreshPeriod ?? 0) >= o + end - 1e-9
    }

    /// Paused or sought: the next frame taken anchors the timeline again.
    public mutating func reanchor() {
        origin = nil
        anchoring = nil
        unreported = nil
    }

    /// With sound: the audio clock's timeline replaces the one anchored at a frame, so frames
    /// follow what is heard. A change smaller than `tolerance` is ignored.
    public mutating func follow(origin audio: Double, tolerance: Double = 0.002) {
        anchoring = nil
        if let o = origin, abs(o - audio) <= tolerance { return }
        origin = audio
    }
}
