import LecternProtocol
import XCTest

@testable import LecternRoom

/// Which screen changes a report of the stage settles (`WallShows`): a newer show carries
/// the older ones' pages, so an older one dropped for it stands or falls with it.
final class WallShowsTests: XCTestCase {
    func testTheTable() {
        let e = LecternError.internalError
        func run(_ asked: [Int], _ reports: [(Int, LecternError?)]) -> [[String]] {
            var s = WallShows()
            for op in asked { s.asked(op) }
            return reports.map { r in s.reported(r.0, error: r.1).map { "\($0.op)\($0.error == nil ? "" : "!")" } }
        }
        // One show: its own report.
        XCTAssertEqual(run([1], [(1, nil)]), [["1"]])
        XCTAssertEqual(run([1], [(1, e)]), [["1!"]])
        // The older dropped for the newer: it waits, then goes with the newer's success.
        XCTAssertEqual(run([1, 2], [(1, e), (2, nil)]), [[], ["1", "2"]])
        // … or with its failure.
        XCTAssertEqual(run([1, 2], [(1, e), (2, e)]), [[], ["1!", "2!"]])
        // The newer shown first: the older is on the wall with it; its late report is passed on.
        XCTAssertEqual(run([1, 2], [(2, nil), (1, e)]), [["1", "2"], ["1!"]])
        // A newer failing alone leaves an older still out for its own report.
        XCTAssertEqual(run([1, 2], [(2, e), (1, nil)]), [["2!"], ["1"]])
        // A report of a show not out (a wall op never remembered) is passed on.
        XCTAssertEqual(run([], [(7, nil)]), [["7"]])
    }

    func testAtMostTheLimitIsRemembered() {
        var s = WallShows()
        for op in 1...(WallShows.limit + 10) { s.asked(op) }
        XCTAssertEqual(s.out.count, WallShows.limit)
        XCTAssertEqual(s.out.first?.op, 11)
    }
}
