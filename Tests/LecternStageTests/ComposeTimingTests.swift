import XCTest

@testable import LecternStage

/// When the display loop composes while a source moves: late in the refresh, so a change
/// asked meanwhile makes the next refresh. A hand-moved clock.
final class ComposeTimingTests: XCTestCase {
    let p = 1.0 / 60

    func testBeforeAnyPresentItComposesAtOnce() {
        let t = ComposeTiming()
        XCTAssertNil(t.composeAt(now: 5, period: p))
        XCTAssertEqual(t.nextRefresh(now: 5, period: p), 5 + p, accuracy: 1e-9)
    }

    func testAfterAPresentItWaitsUntilTheLeadBeforeTheNextRefresh() throws {
        var t = ComposeTiming()
        t.shown(at: 10, period: p)
        // Right after the present: wait until 6 ms before the next refresh.
        let at = try XCTUnwrap(t.composeAt(now: 10.001, period: p))
        XCTAssertEqual(at, 10 + p - ComposeTiming.minimumLead, accuracy: 1e-9)
        XCTAssertEqual(t.nextRefresh(now: 10.001, period: p), 10 + p, accuracy: 1e-9)
        // Past that moment: compose now, for the same refresh.
        XCTAssertNil(t.composeAt(now: 10 + p - 0.003, period: p))
        XCTAssertEqual(t.nextRefresh(now: 10 + p - 0.003, period: p), 10 + p, accuracy: 1e-9)
        // A refresh missed (the loop was late): the one after it.
        XCTAssertEqual(t.nextRefresh(now: 10 + p + 0.001, period: p), 10 + 2 * p, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(t.composeAt(now: 10 + p + 0.001, period: p)), 10 + 2 * p - ComposeTiming.minimumLead, accuracy: 1e-9)
    }

    /// The lead follows what drawing takes: slow draws compose earlier; ones that take most
    /// of a refresh compose at once after the present (as a loop without this would).
    func testTheLeadFollowsTheLongestRecentDraw() {
        var t = ComposeTiming()
        t.shown(at: 10, period: p)
        t.drew(0.004)
        XCTAssertEqual(t.lead(period: p), 0.008, accuracy: 1e-9)
        XCTAssertEqual(t.composeAt(now: 10.001, period: p) ?? 0, 10 + p - 0.008, accuracy: 1e-9)
        t.drew(0.001)
        XCTAssertEqual(t.lead(period: p), 0.008, accuracy: 1e-9, "the longest of the recent ones")
        t.drew(0.020)
        XCTAssertEqual(t.lead(period: p), p * 0.9, accuracy: 1e-9)
        for _ in 0..<ComposeTiming.window { t.drew(0.001) }
        XCTAssertEqual(t.lead(period: p), ComposeTiming.minimumLead, accuracy: 1e-9, "forgotten after a while")
        // One draw the scheduler interrupted among many quick ones doesn't move it.
        t.drew(0.015)
        XCTAssertEqual(t.lead(period: p), ComposeTiming.minimumLead, accuracy: 1e-9)
    }

    /// After a still spell (the last present long ago) the first composition is at once,
    /// however often the loop asks: it never waits on an old grid.
    func testAfterAStillSpellItComposesAtOnce() {
        var t = ComposeTiming()
        t.shown(at: 10, period: p)
        XCTAssertEqual(t.nextRefresh(now: 20, period: p), 20 + p, accuracy: 1e-9)
        XCTAssertNil(t.composeAt(now: 20, period: p))
        XCTAssertNil(t.composeAt(now: 20.01, period: p))
    }

    /// A present that lands a refresh late (the loop woke or drew late) composes earlier
    /// from then on; presents on time give that back slowly.
    func testMissedRefreshesComposeEarlier() {
        var t = ComposeTiming()
        t.shown(at: 10, period: p)
        let base = t.lead(period: p)
        t.composing(for: 10 + p)
        t.shown(at: 10 + 2 * p, period: p)   // missed: shown a refresh late
        XCTAssertEqual(t.lead(period: p), base + 0.002, accuracy: 1e-9)
        t.composing(for: 10 + 3 * p)
        t.shown(at: 10 + 4 * p, period: p)   // missed again: doubled
        XCTAssertEqual(t.lead(period: p), base + 0.006, accuracy: 1e-9)
        for k in 5..<15 {
            t.composing(for: 10 + Double(k) * p)
            t.shown(at: 10 + Double(k) * p, period: p)   // on time
        }
        XCTAssertEqual(t.lead(period: p), base + 0.004, accuracy: 1e-9, "given back slowly")
        for _ in 0..<100 { t.drew(0.05) }
        XCTAssertEqual(t.lead(period: p), p * 0.9, accuracy: 1e-9, "never more than most of a refresh")
    }

    /// A composition drawn ahead is held open until just before its refresh: a turn that
    /// comes meanwhile is drawn into it and makes that refresh. The commit lead follows what
    /// those changes took to draw, and missed refreshes commit earlier.
    func testAHeldCompositionIsCommittedJustBeforeItsRefresh() throws {
        var t = ComposeTiming()
        t.shown(at: 10, period: p)
        let refresh = 10 + p
        // Drawn at the compose lead: held until the least commit lead before the refresh.
        let at = try XCTUnwrap(t.commitAt(now: refresh - ComposeTiming.minimumLead + 0.001, refresh: refresh, period: p))
        XCTAssertEqual(at, refresh - ComposeTiming.minimumCommitLead, accuracy: 1e-9)
        XCTAssertLessThanOrEqual(refresh - at, 0.002, "a turn just after the commit waits one refresh + 2 ms at most")
        // Drawn past that moment: committed at once.
        XCTAssertNil(t.commitAt(now: refresh - 0.001, refresh: refresh, period: p))
        // Changes that took 2 ms to draw in: committed 3.5 ms before.
        for _ in 0..<4 { t.merged(0.002) }
        XCTAssertEqual(try XCTUnwrap(t.commitAt(now: 10.001, refresh: refresh, period: p)), refresh - 0.0035, accuracy: 1e-9)
        // A miss alone doesn't move it (the compose lead grows)...
        t.composing(for: refresh)
        t.shown(at: 10 + 2 * p, period: p)
        XCTAssertEqual(t.commitLead(period: p), 0.0035, accuracy: 1e-9)
        XCTAssertEqual(t.lead(period: p), ComposeTiming.minimumLead + 0.002, accuracy: 1e-9)
        // ...late wake-ups to commit do: the lead covers nearly all recent ones and 0.5 ms.
        for _ in 0..<ComposeTiming.lateWindow { t.committed(late: 0.0001) }
        XCTAssertEqual(t.commitLead(period: p), 0.0035, accuracy: 1e-9, "on-time wake-ups keep it")
        t.committed(late: 0.008)
        XCTAssertEqual(t.commitLead(period: p), 0.0035, accuracy: 1e-9, "one late wake-up among many doesn't move it")
        for _ in 0..<3 { t.committed(late: 0.004) }
        XCTAssertEqual(t.commitLead(period: p), 0.0045, accuracy: 1e-9, "several do")
        // ...until they are forgotten (two seconds of wake-ups on time).
        for _ in 0..<ComposeTiming.lateWindow { t.committed(late: 0) }
        XCTAssertEqual(t.commitLead(period: p), 0.0035, accuracy: 1e-9)
        // Never more than the compose lead: changes slower than that hold nothing.
        for _ in 0..<ComposeTiming.window { t.merged(0.010) }
        XCTAssertEqual(t.commitLead(period: p), t.lead(period: p), accuracy: 1e-9)
        // After a still spell, nothing is held (the grid is not known).
        XCTAssertNil(t.commitAt(now: 20, refresh: 20 + p, period: p))
    }

    /// A present returns at its refresh plus the loop's wake-up: a late return doesn't move
    /// the grid (a held composition would be committed after the refresh), an earlier one
    /// does at once, and a display slower than its nominal rate is followed a little at a time.
    func testTheGridFollowsTheEarliestReturns() {
        var t = ComposeTiming()
        t.shown(at: 10, period: p)
        t.composing(for: 10 + p)
        t.shown(at: 10 + p + 0.003, period: p)   // woke 3 ms after the refresh
        XCTAssertEqual(t.nextRefresh(now: 10 + p + 0.004, period: p), 10 + 2 * p + ComposeTiming.gridCreep, accuracy: 1e-9)
        XCTAssertEqual(t.lead(period: p), ComposeTiming.minimumLead, accuracy: 1e-9, "not a miss")
        t.composing(for: 10 + 2 * p)
        t.shown(at: 10 + 2 * p + 0.0001, period: p)   // nearer the refresh: taken at once
        XCTAssertEqual(t.nextRefresh(now: 10 + 2 * p + 0.001, period: p), 10 + 3 * p + 0.0001, accuracy: 1e-9)
    }
}
