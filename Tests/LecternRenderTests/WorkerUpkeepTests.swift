import LecternPipeline
import XCTest

/// When a render worker is replaced and whether a refused page is tried again
/// (`WorkerUpkeep`, docs/protocol.md §10 "The render budget"): the decision as a table.
final class WorkerUpkeepTests: XCTestCase {
    let mb = 1 << 20

    func testRecyclingAsATable() {
        // (footprints after each page, the action after the last), budget 192 MB: a quarter is 48 MB.
        let rows: [(String, [Int?], WorkerUpkeep.Action)] = [
            ("the first page sets the baseline", [300], .keep),
            ("grown within a quarter of the budget", [300, 320, 348], .keep),
            ("grown past a quarter of the budget", [300, 320, 349], .recycle),
            ("the pdf.js run: 292 after the first, 365 at the end", [292, 365], .recycle),
            ("shrunk again", [300, 340, 290], .keep),
            ("not measurable: kept", [300, nil], .keep),
            ("not measurable at first: the first measured sets the baseline", [nil, 400, 440], .keep),
        ]
        for (name, footprints, expected) in rows {
            var u = WorkerUpkeep(pageBudgetBytes: 192 * mb)
            var last = WorkerUpkeep.Action.keep
            for f in footprints { last = u.finishedPage(footprint: f.map { $0 * mb }) }
            XCTAssertEqual(last, expected, name)
        }
    }

    func testAfterMaxPagesWhateverItsGrowth() {
        var u = WorkerUpkeep(pageBudgetBytes: 192 * mb, maxPages: 3)
        XCTAssertEqual(u.finishedPage(footprint: 300 * mb), .keep)
        XCTAssertEqual(u.finishedPage(footprint: 300 * mb), .keep)
        XCTAssertEqual(u.finishedPage(footprint: 300 * mb), .recycle)
        u.started()
        XCTAssertEqual(u.pages, 0)
        XCTAssertNil(u.baseline)
        XCTAssertEqual(u.finishedPage(footprint: 500 * mb), .keep, "a fresh worker: a new baseline")
    }

    func testRetryingAsATable() {
        var used = WorkerUpkeep(pageBudgetBytes: 192 * mb)
        _ = used.finishedPage(footprint: 300 * mb)
        let fresh = WorkerUpkeep(pageBudgetBytes: 192 * mb)
        let rows: [(String, WorkerUpkeep, WorkerUpkeep.Refusal, Bool, WorkerUpkeep.Verdict)] = [
            ("memory, on a worker that drew pages before", used, .memory, false, .retryOnFresh),
            ("time, on a worker that drew pages before", used, .time, false, .retryOnFresh),
            ("memory, on a fresh worker: the page's own", fresh, .memory, false, .remember),
            ("time, on a fresh worker: the page's own", fresh, .time, false, .remember),
            ("memory, already the second try", used, .memory, true, .remember),
            ("time, already the second try", used, .time, true, .remember),
        ]
        for (name, upkeep, refusal, retried, expected) in rows {
            XCTAssertEqual(upkeep.verdict(on: refusal, retried: retried), expected, name)
        }
    }

    func testTheFootprintLeavesTheSharedFramesOut() {
        let maps = """
            00400000-00500000 r-xp 00000000 08:01 123 /usr/bin/lecternd
            7f0000000000-7f0000800000 rw-s 00000000 00:01 9 /memfd:lectern-frame (deleted)
            7f1000000000-7f1000100000 rw-p 00000000 00:00 0
            garbage line
            """
        XCTAssertEqual(WorkerFootprint.bytes(maps: maps), 0x100000 + 0x100000)
        XCTAssertNotNil(WorkerFootprint.bytes(pid: getpid()))
    }
}
