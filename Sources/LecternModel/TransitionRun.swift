/// One transition on the wall, as time passes: decides each refresh's progress from the
/// times the display loop passes in. Pure: no clock, threads or pixels of its own (the
/// stage asks it once per frame and draws `TransitionBlend` at the progress it returns).
///
/// The first frame is the one the page would have been shown in without a transition
/// (no added latency), and it is already one refresh into the transition, so it differs
/// from the page before. A turn during the transition ends it (`interrupt`): the stage
/// then shows the newest page as a cut.
public struct TransitionRun: Equatable, Sendable {
    public enum Step: Equatable, Sendable {
        /// Draw the transition at this progress (0 < progress ≤ 1; 1 is the new page alone).
        case frame(progress: Double)
        /// The transition is over: nothing more to draw.
        case done
    }

    public let transition: PageTransition
    public let refreshPeriod: Double
    /// The time the transition counts from: one refresh before its first frame was asked for.
    public private(set) var start: Double?
    public private(set) var frames = 0
    public private(set) var finished = false
    public private(set) var interrupted = false

    public init(_ transition: PageTransition, refreshPeriod: Double) {
        precondition(refreshPeriod > 0)
        self.transition = transition
        self.refreshPeriod = refreshPeriod
    }

    /// The frame for the refresh after `now` (monotonic seconds, from whatever clock the
    /// display loop uses).
    public mutating func next(now: Double) -> Step {
        if finished { return .done }
        frames += 1
        let p: Double
        if let s = start {
            let d = transition.duration
            p = d <= 0 ? 1 : min(1, max(now - s, refreshPeriod) / d)
        } else {
            start = now - refreshPeriod
            p = Self.firstProgress(transition, refreshPeriod: refreshPeriod)
        }
        if p >= 1 { finished = true }
        return .frame(progress: p)
    }

    /// The progress of every transition's first frame: exactly one refresh in (so it can be
    /// drawn ahead, before the turn: `Stage`'s first frames).
    public static func firstProgress(_ t: PageTransition, refreshPeriod: Double) -> Double {
        t.duration <= 0 ? 1 : min(1, refreshPeriod / t.duration)
    }

    /// A newer turn arrived: the transition is over at once.
    public mutating func interrupt() {
        if !finished { interrupted = true }
        finished = true
    }

    /// Which transition a change of scene plays: only from a page to a page (a beamer deck's
    /// slide half counts as its page); the new page's
    /// own `/Trans` first (Replace is a cut), else the room's fallback. Blank, unblank and the
    /// idle screen are always cuts (a presenter who blanks wants it dark now).
    public static func choose(from old: Scene?, to new: Scene, pageTransition: PageTransition?, fallback: PageTransition?) -> PageTransition? {
        guard new.deckPage != nil, old?.deckPage != nil, old != new else { return nil }
        let t = pageTransition ?? fallback
        return (t?.animates ?? false) ? t : nil
    }
}

extension Scene {
    /// The deck and page a page scene shows (whole, or a beamer deck's slide half); nil for
    /// the idle screen and blanks.
    public var deckPage: (content: String, page: Int)? {
        switch self {
        case .page(let c, let p), .pagePart(let c, let p, _): return (c, p)
        default: return nil
        }
    }
}
