import Foundation
import LecternModel
import LecternProtocol
import LecternService
import LecternTestSupport
import XCTest

/// The presenter console from the real `lectern` binary against the real `lecternd`:
/// notes, notes-file, timer, and status with the slide label, step and timer.
final class ConsoleCLITests: XCTestCase {
    func testNotesNotesFileTimerAndStatusFromTheCommandLine() throws {
        let d = try CLITests.Daemon(floor: "open")
        let pdf = try Fixtures.beamerNotesDeck(labels: ["1", "2", "2", "3"], in: d.dir, name: "talk.pdf")
        try #"{"pdfpcFormat": 2, "duration": 15, "pages": [{"idx": 1, "label": "2", "overlay": 0, "note": "Two steps here"}]}"#
            .write(toFile: d.dir + "/talk.pdfpc", atomically: true, encoding: .utf8)
        XCTAssertEqual(try d.lectern(["present", pdf, "--page", "3"], name: "ana").status, 0)
        let attach = try d.lectern(["notes-file", d.dir + "/talk.pdfpc"], name: "ana")
        XCTAssertEqual(attach.status, 0, attach.err)

        let notes = try d.lectern(["notes"], name: "ana")
        XCTAssertEqual(notes.status, 0, notes.err)
        XCTAssertTrue(notes.out.contains("page 3 (slide 2)") && notes.out.contains("Two steps here"), notes.out)
        let page1 = try d.lectern(["notes", "--page", "1"], name: "ana")
        XCTAssertTrue(page1.out.contains("(no notes)"), page1.out)

        // Exported back as a pdfpc file.
        let export = try d.lectern(["notes", "--pdfpc", d.dir + "/out.pdfpc"], name: "ana")
        XCTAssertEqual(export.status, 0, export.err)
        let written = try String(contentsOfFile: d.dir + "/out.pdfpc", encoding: .utf8)
        XCTAssertTrue(written.contains("\"note\" : \"Two steps here\""), written)
        XCTAssertTrue(written.contains("\"duration\" : 15"), written)

        // Someone without the floor: refused, exit 17 (the 0x07 area).
        let other = try d.lectern(["notes"], name: "bob")
        XCTAssertEqual(other.status, 17, other.err)
        XCTAssertTrue(other.err.contains("only for whoever has the floor"), other.err)

        // The timer: the .pdfpc's 15 minutes set it; start, status shows it.
        let start = try d.lectern(["timer", "start"], name: "ana")
        XCTAssertEqual(start.status, 0, start.err)
        XCTAssertTrue(start.out.contains("left of 15:00, running"), start.out)
        let twenty = try d.lectern(["timer", "set", "--duration", "20m", "--warn", "3"], name: "ana")
        XCTAssertTrue(twenty.out.contains("left of 20:00"), twenty.out)
        let status = try d.lectern(["status"], name: "bob")
        XCTAssertTrue(status.out.contains("slide: 2 (2 of 3), step 2 of 2"), status.out)
        XCTAssertTrue(status.out.contains("timer: ") && status.out.contains("running"), status.out)
        XCTAssertEqual(try d.lectern(["timer", "pause"], name: "ana").status, 0)
        XCTAssertTrue(try d.lectern(["status"], name: "ana").out.contains("paused"))
        let bad = try d.lectern(["timer", "set", "--duration", "soon"], name: "ana")
        XCTAssertEqual(bad.status, 1)
        let end = try d.lectern(["timer", "set", "--end", "25:99"], name: "ana")
        XCTAssertEqual(end.status, 1, end.err)
        let reset = try d.lectern(["timer", "reset"], name: "ana")
        XCTAssertTrue(reset.out.contains("not started"), reset.out)
    }
}
