import Foundation
import LecternModel
import LecternSystem
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

    /// An MP4 (H.264 in MP4's length-prefixed form, made by ffmpeg): read by FFmpeg, sent as
    /// Annex B, paced by its own timestamps (25 fps, no --fps), and it shows on the wall.
    func testTheCLISharesAnMP4AtItsOwnPace() throws {
        let d = try CLITests.Daemon(floor: "open")
        let mp4 = d.dir + "/clip.mp4"
        let made = try Fixtures.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=blue:s=640x480:r=25", "-frames:v", "75", "-c:v", "libx264",
                "-pix_fmt", "yuv420p", "-bf", "0", "-g", "25", "-movflags", "+faststart", mp4,
            ])
        XCTAssertEqual(made.status, 0, made.err)
        let env = [
            "LECTERN_PASSCODE": "cli-presenter", "LECTERN_SESSION_FILE": d.dir + "/session-kiosk", "LECTERN_KNOWN_ROOMS": d.dir + "/known-rooms",
            "PATH": "/usr/bin:/bin",
        ]
        XCTAssertEqual(try d.lectern(["status"], name: "kiosk").status, 0)
        let started = MonotonicClock.now()
        let share = try RunningProcess(try Fixtures.binary("lectern"), ["share", mp4, "--port", "\(d.port)", "--name", "kiosk"], environment: env)
        _ = try share.waitForOutput("the share live") { $0.contains("live in pane 0 (640×480, 25 fps)") }
        let shot = d.dir + "/wall.png"
        try eventually("the MP4's blue on the wall; lectern: \(share.text)", timeout: 10, interval: 0.2) {
            guard try d.lectern(["screenshot", shot], name: "watcher").status == 0 else { return false }
            let p = try PNG.decode(Data(contentsOf: URL(fileURLWithPath: shot))).pixel(x: 640, y: 360)
            return p.b > 200 && p.r < 60 && p.g < 60
        }
        XCTAssertEqual(try Snapshot.fromJSON(Array(try d.lectern(["status", "--json"], name: "watcher").out.utf8)).shares?.first?.codec, "h264")
        XCTAssertEqual(share.waitForExit(), 0, share.text)
        let took = MonotonicClock.now() - started
        XCTAssertTrue(share.text.contains("shared 75 pictures"), share.text)
        XCTAssertGreaterThanOrEqual(took, 2.9, "3 s of pictures sent in real time, not at once")
        XCTAssertFalse(share.text.contains(" 0 decoded"), share.text)
    }

    func testAFileWithoutH264IsRefusedOnThisSide() throws {
        let d = try CLITests.Daemon(floor: "open")
        try Data("not a video".utf8).write(to: URL(fileURLWithPath: d.dir + "/x.h264"))
        let r = try d.lectern(["share", d.dir + "/x.h264"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.err.contains("is neither raw H.264 nor a video FFmpeg reads"), r.err)
    }
}
