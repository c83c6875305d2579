import Foundation
import LecternProtocol
import LecternTestSupport
import XCTest

/// `lectern layout`, `lectern pane N …`, `lectern wall-add` and the panes in `lectern status`,
/// with the real `lectern` binary against a real `lecternd` (docs/protocol.md §9.7).
final class LayoutCLITests: XCTestCase {
    func testTheModeratorArrangesTheWallFromTheCommandLine() throws {
        let d = try CLITests.Daemon(floor: "moderated")
        let pdf = try Fixtures.numberedDeck(count: 3, in: d.dir)

        let split = try d.lectern(["layout", "split"], name: "chair", moderator: true)
        XCTAssertEqual(split.status, 0, split.err)
        XCTAssertTrue(split.out.contains("layout: split"), split.out)
        XCTAssertTrue(split.out.contains("pane 0 (main): idle, driven by nobody"), split.out)
        XCTAssertTrue(split.out.contains("pane 1: idle, driven by nobody"), split.out)

        let present = try d.lectern(["pane", "1", "present", pdf, "--page", "2"], name: "chair", moderator: true)
        XCTAssertEqual(present.status, 0, present.err)
        XCTAssertTrue(present.out.contains("pane 1: numbered.pdf page 2/3"), present.out)

        // Anyone's status lists the panes; the JSON has the layout.
        let status = try d.lectern(["status"], name: "ana")
        XCTAssertTrue(status.out.contains("layout: split"), status.out)
        XCTAssertTrue(status.out.contains("pane 1: numbered.pdf page 2/3"), status.out)
        let json = try Snapshot.fromJSON(Array(try d.lectern(["status", "--json"], name: "ana").out.utf8))
        XCTAssertEqual(json.layout?.kind, .split)
        XCTAssertEqual(json.layout?.panes.map(\.screen.page), [0, 2])
        XCTAssertEqual(json.protocolMinor, lecternProtocolMinor)

        let swap = try d.lectern(["pane", "0", "swap", "1"], name: "chair", moderator: true)
        XCTAssertEqual(swap.status, 0, swap.err)
        XCTAssertTrue(swap.out.contains("pane 0: numbered.pdf page 2/3"), swap.out)
        XCTAssertTrue(swap.out.contains("pane 1 (main): idle"), swap.out)

        // Mistakes: on this side (1), the server's (10 + the code's high byte).
        XCTAssertEqual(try d.lectern(["layout", "hexagon"], name: "chair", moderator: true).status, 1)
        XCTAssertEqual(try d.lectern(["pane", "0", "assign", "nobody-here"], name: "chair", moderator: true).status, 1)
        XCTAssertEqual(try d.lectern(["pane", "0", "spin"], name: "chair", moderator: true).status, 1)
        let noPane = try d.lectern(["pane", "3", "clear"], name: "chair", moderator: true)
        XCTAssertEqual(noPane.status, 25, noPane.err)
        XCTAssertTrue(noPane.err.contains("no pane 3"), noPane.err)
        let notMod = try d.lectern(["layout", "quad"], name: "ana")
        XCTAssertEqual(notMod.status, 12, notMod.err)
        let added = try d.lectern(["wall-add", pdf], name: "ana")
        XCTAssertEqual(added.status, 25, "a moderated room: the moderator arranges the wall")
        XCTAssertTrue(added.err.contains("moderator arranges the wall"), added.err)

        // Back to one pane: the main one is kept.
        let full = try d.lectern(["layout", "full"], name: "chair", moderator: true)
        XCTAssertEqual(full.status, 0, full.err)
        XCTAssertTrue(full.out.contains("layout: full"), full.out)
        XCTAssertEqual(full.out.components(separatedBy: "\n").filter { $0.hasPrefix("pane ") }, ["pane 0 (main): idle, driven by nobody"])
        XCTAssertFalse(try d.lectern(["status"], name: "ana").out.contains("layout:"), "one pane: status as before")
    }

    /// Each `lectern` invocation is one connection: between two, a pane's driver is away,
    /// and keeps its pane for the grace period (§9.6), so a presenter drives a pane from
    /// the command line as it drives the floor; `status` says the driver is away.
    func testACommandLinePresenterDrivesItsPaneAcrossInvocations() throws {
        let d = try CLITests.Daemon(floor: "open")
        let ana = try Fixtures.numberedDeck(count: 3, in: d.dir, name: "ana.pdf")
        let ben = try Fixtures.numberedDeck(count: 4, in: d.dir, name: "ben.pdf")
        XCTAssertEqual(try d.lectern(["present", ana], name: "ana").status, 0)
        let added = try d.lectern(["wall-add", ben, "--page", "2"], name: "ben")
        XCTAssertEqual(added.status, 0, added.err)
        XCTAssertTrue(added.out.contains("pane 1: ben.pdf page 2/4, driven by ben"), added.out)
        let next = try d.lectern(["next"], name: "ben")   // a new connection, Ben's token: his pane
        XCTAssertEqual(next.status, 0, next.err)
        try eventually("Ben's next turned pane 1", timeout: 10) {
            try d.lectern(["status"], name: "watcher").out.contains("pane 1: ben.pdf page 3/4, driven by ben")
        }
        let status = try d.lectern(["status"], name: "watcher").out
        XCTAssertTrue(status.contains("pane 0 (main): ana.pdf page 1/3, driven by ana"), status)
        XCTAssertTrue(status.contains("s left to come back)"), "away between invocations: \(status)")
    }

    func testAPaneFullScreenFromTheCommandLine() throws {
        let d = try CLITests.Daemon(floor: "moderated")
        let pdf = try Fixtures.numberedDeck(count: 3, in: d.dir)
        XCTAssertEqual(try d.lectern(["layout", "quad"], name: "chair", moderator: true).status, 0)
        XCTAssertEqual(try d.lectern(["pane", "3", "present", pdf, "--page", "3"], name: "chair", moderator: true).status, 0)
        let full = try d.lectern(["pane", "3", "full"], name: "chair", moderator: true)
        XCTAssertEqual(full.status, 0, full.err)
        XCTAssertTrue(full.out.contains("layout: full"), full.out)
        try eventually("pane 3's page is the wall", timeout: 10) {
            try d.lectern(["status"], name: "ana").out.contains("screen: numbered.pdf page 3/3")
        }
    }
}
