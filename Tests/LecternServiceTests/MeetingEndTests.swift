import Foundation
import LecternClient
import LecternModel
import LecternProtocol
@testable import LecternService
import LecternTestSupport
import XCTest

/// The end of a meeting (docs/protocol.md §27) against a real service: nothing of it is
/// left in `data_dir` or on the wall, and everyone is told.
final class MeetingEndTests: XCTestCase {
    /// Every file under `dir` and its text (binary files as their names only).
    static func files(_ dir: String) -> [String: String] {
        var out: [String: String] = [:]
        let e = FileManager.default.enumerator(atPath: dir)
        while let f = e?.nextObject() as? String {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir + "/" + f, isDirectory: &isDir), !isDir.boolValue else { continue }
            out[f] = (try? String(contentsOfFile: dir + "/" + f, encoding: .utf8)) ?? ""
        }
        return out
    }

    /// The CLI's end-meeting, with the moderator passcode, on a real `lecternd`; then the
    /// data directory read: no poll, question, ink, whiteboard, upload or download offer left.
    func testTheCLIEndsTheMeetingAndNothingOfItIsLeftInTheDataDirectory() throws {
        let d = try CLITests.Daemon(floor: "open")
        let pdf = try Fixtures.numberedDeck(count: 3, in: d.dir)
        XCTAssertEqual(try d.lectern(["present", pdf], name: "ana").status, 0)
        let stroke = d.dir + "/stroke.json"
        try #"{"points": [[0.1, 0.1], [0.9, 0.9]]}"#.write(toFile: stroke, atomically: true, encoding: .utf8)
        XCTAssertEqual(try d.lectern(["draw", stroke], name: "ana").status, 0)
        XCTAssertEqual(try d.lectern(["poll", "ask", "Secret poll?", "Red", "Green"], name: "ana").status, 0)
        XCTAssertEqual(try d.lectern(["ask", "A private question?", "--viewer"], name: "viewer0").status, 0)
        XCTAssertEqual(try d.lectern(["timer", "start"], name: "ana").status, 0)
        let before = Self.files(d.dir + "/data")
        XCTAssertTrue(before["state.json"]?.contains("Secret poll?") ?? false, "the meeting is in the saved state: \(before.keys.sorted())")
        XCTAssertTrue(before.keys.contains { $0.hasPrefix("content/") && !$0.hasSuffix(".json") }, "the upload is stored")

        // A presenter can't end it (exit 12: the floor's area); the moderator can.
        let refused = try d.lectern(["end-meeting"], name: "ana")
        XCTAssertEqual(refused.status, 12, refused.err)
        let ended = try d.lectern(["end-meeting"], name: "mo", moderator: true)
        XCTAssertEqual(ended.status, 0, ended.err)
        XCTAssertTrue(ended.out.contains("The meeting ended."), ended.out)

        // Nothing of it is left on disk (the saved state is rewritten at once, uploads removed).
        try eventually("the upload removed and the state saved without the meeting") {
            let after = Self.files(d.dir + "/data")
            return !(after["state.json"]?.contains("Secret poll?") ?? true) && !after.keys.contains { $0.hasPrefix("content/") }
        }
        let after = Self.files(d.dir + "/data")
        let state = after["state.json"] ?? ""
        for leftover in ["Secret poll?", "A private question?", "\"strokes\"", "downloadToken"] {
            XCTAssertFalse(state.contains(leftover), "'\(leftover)' left in state.json: \(state)")
        }
        XCTAssertEqual(after.keys.filter { $0.hasPrefix("content/") }, [], "uploads removed at the end (uploads_kept = \"meeting\")")
        let status = try d.lectern(["status", "--json"], name: "mo", moderator: true)
        XCTAssertTrue(status.out.contains("\"content\":null"), status.out)
    }

    /// Typed notes are the presenter's for the meeting; a kept upload's file notes stay.
    /// Ink drawn in meeting 1 is absent in meeting 2, on the wall (pixels) and in the state.
    func testInkAndTypedNotesOfOneMeetingAreAbsentInTheNext() throws {
        let h = try ServiceHarness(floor: .open) { $0.uploadsKept = .day }
        let pdf = try Fixtures.numberedDeck(count: 2, in: h.dir)
        let ana = try h.presenter("Ana")
        _ = try ana.requestFloor()
        let stored = try ana.upload(path: pdf)
        try ana.present(stored.content)
        let plain = try h.expectedFrame(pdf: pdf, page: 1)
        try eventually("page 1 on the wall") { PixelCompare.differingPixels(h.service.stage.screenshot(), plain) == 0 }
        try ana.draw([InkPoint(x: 1000, y: 1000), InkPoint(x: 60000, y: 60000)], width: .thick)
        _ = try ana.request(.notesEdit(NotesEdit(content: stored.content, page: 1, text: "Ana's private note")))
        try eventually("the ink on the wall") { PixelCompare.differingPixels(h.service.stage.screenshot(), plain) > 100 }
        let meeting1 = try ana.state().meeting
        XCTAssertNotNil(meeting1)
        let notesFile = h.dir + "/data/content/\(stored.content.hex).notes.json"
        XCTAssertTrue((try? String(contentsOfFile: notesFile, encoding: .utf8))?.contains("Ana's private note") ?? false)

        let mod = try h.moderator()
        _ = try mod.request(.audienceSet(.endMeeting))
        // Ana is told and let go.
        var told: LecternError?
        while let m = ana.nextEvent(timeout: 5) { if case .error(let e) = m { told = e; break } }
        XCTAssertEqual(told?.code, .meetingEnded)

        // Meeting 2: Bob shows the same deck (kept for the day): no ink, no note of Ana's.
        let bob = try h.presenter("Bob")
        _ = try bob.requestFloor()
        _ = try bob.upload(path: pdf)
        try bob.present(stored.content)
        let s = try bob.waitForState { $0.screen.content?.id == stored.content }
        XCTAssertNotEqual(s.meeting, meeting1, "a new meeting")
        XCTAssertEqual(s.ink?.strokes, 0)
        XCTAssertEqual(s.ink?.pages.count, 0)
        XCTAssertEqual(try bob.inkStrokes(), [])
        try eventually("the page on the wall without meeting 1's ink") { PixelCompare.differingPixels(h.service.stage.screenshot(), plain) == 0 }
        XCTAssertNil(try bob.notes(stored.content, page: 1).pages.first { $0.source == "typed" }, "Ana's typed note is gone")
        let kept = (try? String(contentsOfFile: notesFile, encoding: .utf8)) ?? ""
        XCTAssertFalse(kept.contains("Ana's private note"), "the typed note is gone from disk: \(kept)")
    }
}
