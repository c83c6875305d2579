/// When the display loop composes while something moves (issue 26): a moving source (a clip
/// in a pane) asks for a composition at every refresh, and a present returns at the refresh
/// that shows it. Composing at once after that would draw the next frame a whole refresh
/// early, and a change asked meanwhile (a page turn in the pane beside the clip) would wait
/// for the refresh after. So the loop keeps taking its mailbox until a lead before the next
/// refresh (what drawing takes, with a margin), then composes — at once when something else
/// changed meanwhile (`StageCore.dirty`: a page turn beside the clip makes the next refresh,
/// as on a still wall). Pure arithmetic on the times the loop passes in.
///
/// A composition drawn ahead is not committed at once: the loop holds the drawn back buffer
/// open until `commitAt`, just before its refresh, and draws into it what changes meanwhile
/// (a page turn beside a clip, `merged`). The clip's frame is drawn early (a late wake-up
/// doesn't cost it its refresh), and a turn makes the next refresh unless it comes in the
/// last `commitLead` before it (so a turn waits at most a refresh and that much).
struct ComposeTiming: Equatable {
    /// The least time before a refresh the loop composes at: half a refresh at 60 Hz. Less
    /// (4 ms) halved the turn beside a clip again on the loaded bench machine, but missed a
    /// refresh in ten; at 8 ms the presents are as regular as composing at once.
    static let minimumLead = 0.008
    /// Drawing times remembered: the third quartile of the last `window` sets the lead.
    static let window = 32
    /// The least time before a refresh a held composition is committed at. A turn that
    /// comes later waits a refresh more, so this is what a turn beside a clip may take over
    /// one refresh (the goal is one refresh + 2 ms); the present itself (the flip's commit,
    /// the virtual display's swap at the refresh) takes well under it.
    static let minimumCommitLead = 0.0015

    /// When the last present became visible (the loop's clock), if one did.
    private(set) var lastShown: Double?
    /// The refresh grid the loop waits on: a present returns at its refresh plus the loop's
    /// wake-up, which a loaded board delays by milliseconds (a grid on the last return would
    /// commit a held composition after the refresh). The earliest returns are nearest the
    /// refreshes, so the grid takes a return earlier than it at once, and moves later by at
    /// most `gridCreep` a present (what a display's rate may differ from its nominal one).
    private(set) var grid: Double?
    static let gridCreep = 0.0002
    /// The last compositions' drawing times (seconds), newest last.
    private var draws: [Double] = []
    /// What the last changes drawn into a held composition took (seconds), newest last.
    private var merges: [Double] = []
    /// The refresh the composition being presented was meant for.
    private var meantFor: Double?
    /// Lead added after refreshes missed (a loaded board wakes and draws late): doubled at
    /// each miss, given back slowly while presents land on time. The compose lead's only: a
    /// held composition's commit follows its own wake-ups (`late`).
    private(set) var extra = 0.0
    /// How late the loop woke to commit its recent held compositions (seconds past the
    /// commit point), newest last: the commit lead covers nearly all of them (the 98th
    /// percentile: one wake-up the scheduler delayed among many on time doesn't move it), so
    /// a board whose wake-ups are late under load commits earlier (and misses fewer
    /// refreshes), and a quiet one keeps the least lead (a turn beside a clip waits one
    /// refresh + 2 ms at most).
    private var late: [Double] = []
    /// Wake-ups remembered: two seconds at 60 Hz.
    static let lateWindow = 120

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
        if let g = grid, let l = lastShown, period > 0, time - l < 8 * period {
            let onGrid = g + ((time - g) / period).rounded() * period
            grid = time < onGrid ? time : onGrid + min(time - onGrid, Self.gridCreep)
        } else {
            grid = time
        }
        lastShown = time
    }

    /// A composition took `seconds` to draw into the back buffer.
    mutating func drew(_ seconds: Double) {
        draws.append(max(0, seconds))
        if draws.count > Self.window { draws.removeFirst(draws.count - Self.window) }
    }

    /// The loop woke `seconds` after the commit point of a held composition (0: on time).
    mutating func committed(late seconds: Double) {
        late.append(max(0, seconds))
        if late.count > Self.lateWindow { late.removeFirst(late.count - Self.lateWindow) }
    }

    /// A change drawn into a held composition (only the panes it changed) took `seconds`.
    mutating func merged(_ seconds: Double) {
        merges.append(max(0, seconds))
        if merges.count > Self.window { merges.removeFirst(merges.count - Self.window) }
    }

    /// How long before a refresh a held composition is committed: what most recent changes
    /// drawn into it took (the third quartile, as for `lead`; what whole compositions took
    /// before any was merged) and half of that again, plus 0.5 ms to wake and commit, at
    /// least `minimumCommitLead`, and at least how late nearly all recent wake-ups to commit
    /// were and 0.5 ms (a loaded board commits earlier); never more than the compose lead (then nothing is
    /// held). A missed refresh alone doesn't move it: a held composition missed its refresh
    /// because the loop woke late, and that lateness is what it follows.
    func commitLead(period: Double) -> Double {
        let typical = Self.thirdQuartile(merges.isEmpty ? draws : merges)
        let woke = Self.quantile(late, 0.98) + 0.0005
        return min(lead(period: period), max(Self.minimumCommitLead, typical * 1.5 + 0.0005, woke))
    }

    /// Until when a composition drawn at `now` for the refresh at `refresh` is held open for
    /// changes; nil: committed at once (it is past that, or not on the grid of a recent present).
    func commitAt(now: Double, refresh: Double, period: Double) -> Double? {
        guard recent(now: now, period: period) != nil else { return nil }
        let at = refresh - commitLead(period: period)
        return at > now ? at : nil
    }

    private static func thirdQuartile(_ values: [Double]) -> Double { quantile(values, 0.75) }

    private static func quantile(_ values: [Double], _ q: Double) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]
    }

    /// How long before a refresh the loop composes: one and a half times what most recent
    /// drawings took (the slowest quarter left out: a draw the scheduler interrupted once
    /// doesn't move every later one), plus 2 ms for waking up, at least `minimumLead`, plus
    /// what missed refreshes added, and never more than most of a refresh (a board too slow
    /// or too loaded to draw in time composes at once after each present, as without this).
    func lead(period: Double) -> Double {
        min(period * 0.9, max(Self.minimumLead, Self.thirdQuartile(draws) * 1.5 + 0.002) + extra)
    }

    /// The refresh the next present is shown at: the first after `now` on the grid of recent
    /// presents (else a refresh from now).
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
        return grid ?? v
    }
}
