import Foundation
import LecternCore
import LecternProtocol
import LecternRender
import LecternTestSupport
import XCTest

/// `lectern share FILE` with the real binaries (docs/protocol.md §29.7): a clip made by
/// ffmpeg as raw H.264 streams in real time onto the wall, whose pixels show it.
final class ShareCLITests: XCTestCase {
    func testTheCLIsShareOfAGeneratedClipAppearsOnTheWall() throws {
        let d = try CLITests.Daemon(floor: "open")
        // 4 s of yellow at 25 fps, 4:3: the 1280×720 wall shows it 960 wide with 160-pixel bars.
        let clip = try Fixtures.annexB(in: d.dir, width: 640, height: 480, frames: 100, fps: 25, color: "yellow")
        let env = [
            "LECTERN_PASSCODE": "cli-presenter", "LECTERN_SESSION_FILE": d.dir + "/session-kiosk", "LECTERN_KNOWN_ROOMS": d.dir + "/known-rooms",
            "PATH": "/usr/bin:/bin",
        ]
        // The room's certificate pinned first, as any first use of the CLI does.
        XCTAssertEqual(try d.lectern(["status"], name: "kiosk").status, 0)
        let share = try RunningProcess(
            try Fixtures.binary("lectern"), ["share", clip, "--fps", "25", "--port", "\(d.port)", "--name", "kiosk"], environment: env)
        _ = try share.waitForOutput("the share live") { $0.contains("live in pane 0 (640×480, 25 fps)") }
        let shot = d.dir + "/wall.png"
        var seen = ""
        try eventually("the clip's yellow on the wall, with bars (\(seen)); lecternd: \(d.process.text.suffix(1500)); lectern: \(share.text)", timeout: 10, interval: 0.2) {
            let r = try d.lectern(["screenshot", shot], name: "watcher")
            guard r.status == 0 else {
                seen = r.err
                return false
            }
            let w = try PNG.decode(Data(contentsOf: URL(fileURLWithPath: shot)))
            let mid = w.pixel(x: 640, y: 360), edge = w.pixel(x: 170, y: 360), bar = w.pixel(x: 150, y: 360)
            seen = "\(w.width)×\(w.height): middle \(mid), edge \(edge), bar \(bar)"
            return mid.r > 220 && mid.g > 220 && mid.b < 60 && edge.r > 220 && edge.b < 60 && bar == .black
        }
        let status = try Snapshot.fromJSON(Array(try d.lectern(["status", "--json"], name: "watcher").out.utf8))
        XCTAssertEqual(status.shares?.first?.source, "file")
        XCTAssertEqual(status.shares?.first?.status, .live)
        XCTAssertEqual(share.waitForExit(), 0, share.text)
        XCTAssertTrue(share.text.contains("shared 100 pictures"), share.text)
        XCTAssertNil(try Snapshot.fromJSON(Array(try d.lectern(["status", "--json"], name: "watcher").out.utf8)).shares, "the end of the file ends the share")
    }

    func testAFileWithoutH264IsRefusedOnThisSide() throws {
        let d = try CLITests.Daemon(floor: "open")
        try Data("not a video".utf8).write(to: URL(fileURLWithPath: d.dir + "/x.h264"))
        let r = try d.lectern(["share", d.dir + "/x.h264"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.err.contains("holds no H.264 picture"), r.err)
    }
}
