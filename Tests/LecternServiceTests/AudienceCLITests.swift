import Foundation
import LecternModel
import LecternProtocol
import LecternService
import LecternTestSupport
import XCTest

/// The audience from the real `lectern` binary against the real `lecternd` (§24): --viewer,
/// follow, poll ask/answer/close/reveal/results, ask, questions, lock/unlock.
final class AudienceCLITests: XCTestCase {
    func testPollsQuestionsFollowAndTheViewerRoleFromTheCommandLine() throws {
        let d = try CLITests.Daemon(floor: "open")
        let pdf = try Fixtures.numberedDeck(count: 3, in: d.dir)
        XCTAssertEqual(try d.lectern(["present", pdf], name: "ana").status, 0)

        // `lectern follow --viewer` prints each page change.
        let follow = try RunningProcess(
            try Fixtures.binary("lectern"), ["follow", "--viewer", "--port", "\(d.port)"],
            environment: [
                "LECTERN_PASSCODE": "cli-presenter", "LECTERN_SESSION_FILE": d.dir + "/session-follower", "LECTERN_KNOWN_ROOMS": d.dir + "/known-rooms",
                "PATH": "/usr/bin:/bin",
            ])
        defer { follow.kill() }
        _ = try follow.waitForOutput { $0.contains("page 1 of 3") }
        XCTAssertEqual(try d.lectern(["next"], name: "ana").status, 0)
        _ = try follow.waitForOutput { $0.contains("page 2 of 3") }

        let ask = try d.lectern(["poll", "ask", "Best colour?", "Red", "Green", "Blue", "--correct", "Green"], name: "ana")
        XCTAssertEqual(ask.status, 0, ask.err)
        XCTAssertTrue(ask.out.contains("poll 1 asked"), ask.out)
        for (i, answer) in ["B", "green", "A"].enumerated() {
            let r = try d.lectern(["poll", "answer", answer, "--viewer"], name: "viewer\(i)")
            XCTAssertEqual(r.status, 0, r.err)
        }
        // Answering again from the same device replaces its answer.
        XCTAssertEqual(try d.lectern(["poll", "answer", "C", "--viewer"], name: "viewer2").status, 0)
        let results = try d.lectern(["poll", "results"], name: "ana")
        XCTAssertTrue(results.out.contains("3 answers"), results.out)
        XCTAssertTrue(results.out.contains("A Red: 0"), results.out)
        XCTAssertTrue(results.out.contains("B Green: 2 ✓"), results.out)
        XCTAssertTrue(results.out.contains("C Blue: 1"), results.out)
        // A viewer sees no results before they are revealed, and can't turn pages (exit 19).
        XCTAssertFalse(try d.lectern(["poll", "results", "--viewer"], name: "viewer0").out.contains("Green: 2"))
        let turn = try d.lectern(["next", "--viewer"], name: "viewer0")
        XCTAssertEqual(turn.status, 19, turn.err)
        XCTAssertTrue(turn.err.contains("viewer"), turn.err)
        XCTAssertEqual(try d.lectern(["poll", "close"], name: "ana").status, 0)
        XCTAssertEqual(try d.lectern(["poll", "answer", "A", "--viewer"], name: "viewer0").status, 19, "closed")
        XCTAssertEqual(try d.lectern(["poll", "reveal", "--answer"], name: "ana").status, 0)
        XCTAssertTrue(try d.lectern(["poll", "results", "--viewer"], name: "viewer0").out.contains("B Green: 2 ✓"))

        XCTAssertEqual(try d.lectern(["ask", "Where", "are", "the", "slides?", "--viewer"], name: "viewer1").status, 0)
        let questions = try d.lectern(["questions"], name: "ana")
        XCTAssertTrue(questions.out.contains("1. [0] Where are the slides?"), questions.out)
        XCTAssertEqual(try d.lectern(["unlock"], name: "ana").status, 0)
        XCTAssertEqual(try d.lectern(["lock"], name: "ana").status, 0)
        XCTAssertEqual(try d.lectern(["lock", "--viewer"], name: "viewer1").status, 19)
    }
}
