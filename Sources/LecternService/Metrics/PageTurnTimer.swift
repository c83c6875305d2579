import LecternModel

/// Times page turns for the metrics: from the room's `show` of a page to the stage's report
/// that it is on the output. Pure: the caller gives the time. Bounded: at most
/// `maxPending` shows wait for their report (a stage that never answers can't grow it).
struct PageTurnTimer {
    static let maxPending = 64
    private var pending: [Int: Double] = [:]

    /// The room asked the stage to show `plan` as operation `op` at `now`: a page turn when a
    /// pane shows a page.
    mutating func showing(op: Int, _ plan: WallPlan, now: Double) {
        for case .scene(let s) in plan.panes where s.deckPage != nil { return showing(op: op, s, now: now) }
    }

    /// The room asked the stage to show `scene` as operation `op` at `now`.
    mutating func showing(op: Int, _ scene: Scene, now: Double) {
        switch scene {
        case .page, .pagePart:
            if pending.count >= Self.maxPending, let oldest = pending.min(by: { $0.key < $1.key })?.key { pending[oldest] = nil }
            pending[op] = now
        default:   // the idle screen, a blank, a card over the screen: no page turn
            return
        }
    }

    /// The stage reported `op` done at `now`: the turn's latency in seconds when `op` was a
    /// page shown without error; nil otherwise (a failed show is no page turn).
    mutating func shown(op: Int, failed: Bool, now: Double) -> Double? {
        guard let since = pending.removeValue(forKey: op), !failed else { return nil }
        return max(0, now - since)
    }
}

/// A clip's frame counts arrive as running totals per clip: the increments since the last
/// report, for counters that only go up. Pure.
struct ClipFrameTally {
    private var last: (serial: Int, presented: Int, dropped: Int)?

    /// The frames presented and dropped since the last report of the same clip.
    mutating func report(serial: Int, presented: Int, dropped: Int) -> (presented: Int, dropped: Int) {
        let before: (serial: Int, presented: Int, dropped: Int) = last?.serial == serial ? last! : (serial, 0, 0)
        last = (serial, max(before.presented, presented), max(before.dropped, dropped))
        return (max(0, presented - before.presented), max(0, dropped - before.dropped))
    }
}
