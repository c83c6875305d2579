/// When the display loop composes while something moves (issue 26): a moving source (a clip
/// in a pane) asks for a composition at every refresh, and a present returns at the refresh
/// that shows it. Composing at once after that would draw the next frame a whole refresh
/// early, and a change asked meanwhile (a page turn in the pane beside the clip) would wait
/// for the refresh after. So the loop keeps taking its mailbox until a lead before the next
/// refresh (what drawing takes, with a margin), then composes — at once when something else
/// changed meanwhile (`StageCore.dirty`: a page turn beside the clip makes the next refresh,
/// as on a still wall). Pure arithmetic on the times the loop passes in.
struct ComposeTiming: Equatable {
    /// The least time before a refresh the loop composes at: half a refresh at 60 Hz. Less
    /// (4 ms) halved the turn beside a clip again on the loaded bench machine, but missed a
    /// refresh in ten; at 8 ms the presents are as regular as composing at once.
    static let minimumLead = 0.008
    /// Drawing times remembered: the third quartile of the last `window` sets the lead.
    static let window = 32

    /// When the last present became visible (the loop's clock), if one did.
    private(set) var lastShown: Double?
    /// The last compositions' drawing times (seconds), newest last.
    private var draws: [Double] = []
    /// The refresh the composition being presented was meant for.
    private var meantFor: Double?
    /// Lead added after refreshes missed (a loaded board wakes and draws late): doubled at
    /// each miss, given back slowly while presents land on time.
    private(set) var extra = 0.0

    /// The composition about to be drawn is meant for the refresh at `refresh`.
    mutating func composing(for refresh: Double) { meantFor = refresh }

    /// The present became visible at `time`: on the refresh it was meant for, or later (a miss).
    mutating func shown(at time: Double, period: Double) {
        if let m = meantFor, period > 0 {
            if time > m + period / 2 {
                extra = min(period, extra * 2 + 0.002)
            } else {
                extra = max(0, extra - 0.0002)
            }
        }
        meantFor = nil
        lastShown = time
    }

    /// A composition took `seconds` to draw into the back buffer.
    mutating func drew(_ seconds: Double) {
        draws.append(max(0, seconds))
        if draws.count > Self.window { draws.removeFirst(draws.count - Self.window) }
    }

    /// How long before a refresh the loop composes: one and a half times what most recent
    /// drawings took (the slowest quarter left out: a draw the scheduler interrupted once
    /// doesn't move every later one), plus 2 ms for waking up, at least `minimumLead`, plus
    /// what missed refreshes added, and never more than most of a refresh (a board too slow
    /// or too loaded to draw in time composes at once after each present, as without this).
    func lead(period: Double) -> Double {
        let sorted = draws.sorted()
        let typical = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, sorted.count * 3 / 4)]
        return min(period * 0.9, max(Self.minimumLead, typical * 1.5 + 0.002) + extra)
    }

    /// The refresh the next present is shown at: the first after `now` on the grid of the
    /// last present, if that was recent (else a refresh from now).
    func nextRefresh(now: Double, period: Double) -> Double {
        guard let v = recent(now: now, period: period) else { return now + period }
        var r = v + period
        while r <= now { r += period }
        return r
    }

    /// Until when the loop waits for its mailbox before composing (nil: compose now). Only
    /// on the grid of a recent present: after a still spell the first composition is at once.
    func composeAt(now: Double, period: Double) -> Double? {
        guard recent(now: now, period: period) != nil else { return nil }
        let at = nextRefresh(now: now, period: period) - lead(period: period)
        return at > now ? at : nil
    }

    private func recent(now: Double, period: Double) -> Double? {
        guard let v = lastShown, period > 0, now - v < 8 * period else { return nil }
        return v
    }
}
