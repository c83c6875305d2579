import Foundation
import LecternModel
import LecternProtocol
import LecternService
import LecternTestSupport
import XCTest

/// Prepared polls from the real `lectern` binary against the real `lecternd` (§24.3):
/// prepare two with the deck on the wall, list them, remove one, ask one by number.
final class PreparedPollsCLITests: XCTestCase {
    func testPreparePreparedUnprepareAndAskByNumber() throws {
        let d = try CLITests.Daemon(floor: "open")
        let pdf = try Fixtures.numberedDeck(count: 3, in: d.dir)
        XCTAssertEqual(try d.lectern(["present", pdf], name: "ana").status, 0)
        let first = try d.lectern(["poll", "prepare", "Best colour?", "Red", "Green", "Blue", "--correct", "Green"], name: "ana")
        XCTAssertEqual(first.status, 0, first.err)
        XCTAssertTrue(first.out.contains("prepared poll 1"), first.out)
        XCTAssertEqual(try d.lectern(["poll", "prepare", "Clear so far?", "--yesno"], name: "ana").status, 0)
        XCTAssertEqual(try d.lectern(["poll", "prepare", "Anything to add?", "--text"], name: "ana").status, 0)
        XCTAssertEqual(try d.lectern(["poll", "unprepare", "3"], name: "ana").status, 0)
        let list = try d.lectern(["poll", "prepared"], name: "ana")
        XCTAssertTrue(list.out.contains("1. Best colour? A (Red), B (Green), C (Blue) ✓ B"), list.out)
        XCTAssertTrue(list.out.contains("2. Clear so far? A (Yes), B (No)"), list.out)
        XCTAssertFalse(list.out.contains("Anything to add?"), list.out)

        let ask = try d.lectern(["poll", "ask", "--prepared", "2"], name: "ana")
        XCTAssertEqual(ask.status, 0, ask.err)
        XCTAssertTrue(ask.out.contains("poll 1 asked"), ask.out)
        XCTAssertEqual(try d.lectern(["poll", "answer", "yes", "--viewer"], name: "viewer0").status, 0)
        XCTAssertTrue(try d.lectern(["poll", "results"], name: "ana").out.contains("Clear so far?"))
        let missing = try d.lectern(["poll", "ask", "--prepared", "7"], name: "ana")
        XCTAssertNotEqual(missing.status, 0, "no such prepared poll")
        XCTAssertNotEqual(try d.lectern(["poll", "prepare", "Sneaky?", "A", "B", "--viewer"], name: "viewer0").status, 0, "viewers can't prepare")
    }
}
