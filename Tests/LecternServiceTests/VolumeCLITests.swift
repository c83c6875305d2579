import Foundation
import LecternTestSupport
import XCTest

/// `lectern volume 0..100|mute|unmute` against the real lecternd (no sound card needed:
/// the volume is the room's, shown in the state).
final class VolumeCLITests: XCTestCase {
    func testVolumeMuteAndUnmuteFromTheCommandLine() throws {
        let d = try CLITests.Daemon(extra: "audio_device = \"off\"")
        XCTAssertEqual(try d.lectern(["floor", "request"]).status, 0)
        let set = try d.lectern(["volume", "40"])
        XCTAssertEqual(set.status, 0, set.err)
        XCTAssertEqual(set.out, "volume 40 — no sound device: clips play silent\n")
        XCTAssertEqual(try d.lectern(["volume", "mute"]).out, "volume 40 (muted) — no sound device: clips play silent\n")
        XCTAssertEqual(try d.lectern(["volume", "unmute"]).out, "volume 40 — no sound device: clips play silent\n")
        XCTAssertEqual(try d.lectern(["volume", "101"]).status, 1, "checked on this side")
        XCTAssertEqual(try d.lectern(["volume", "loud"]).status, 1)
        // Someone else, without the floor: the server's floor area.
        XCTAssertEqual(try d.lectern(["volume", "10"], name: "other").status, 12)
        let status = try d.lectern(["status", "--json"])
        XCTAssertTrue(status.out.contains("\"sound\":{\"device\":null,\"level\":40,\"muted\":false}"), status.out)
    }
}
