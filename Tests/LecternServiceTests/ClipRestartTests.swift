import Foundation
import Glibc
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol
import LecternRender
import LecternTestSupport
import XCTest

/// Issue 18, must 3: after `kill -9` the clip that was on the wall comes back at the
/// position it had, paused or playing as it was — against the real lecternd.
final class ClipRestartTests: XCTestCase {
    func isRed(_ c: RGB) -> Bool { c.r > 200 && c.g < 70 && c.b < 70 }
    func isBlue(_ c: RGB) -> Bool { c.b > 200 && c.r < 70 && c.g < 70 }

    /// 12 s at 25 fps: red for the first 6 s, blue for the last 6, so the picture says
    /// which half the clip is in.
    func redThenBlueClip(in dir: String) throws -> String {
        let path = dir + "/red-blue.mp4"
        let r = try Fixtures.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=red:s=640x480:r=25:d=6",
                "-f", "lavfi", "-i", "color=c=blue:s=640x480:r=25:d=6",
                "-filter_complex", "[0][1]concat=n=2:v=1:a=0", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "25", path,
            ])
        guard r.status == 0 else { throw Fixtures.ToolError(description: "ffmpeg made no clip: \(r.err)") }
        return path
    }

    func savedClip(_ dir: String) -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: dir + "/data/state.json"),
            let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return json["clip"] as? [String: Any]
    }

    func connect(_ port: Int, _ passcode: String, name: String = "A", token: ResumeToken? = nil) throws -> LecternConnection {
        let c = try LecternConnection(host: "127.0.0.1", port: port, tls: ClientTLS { _ in true })   // lecternd on its defaults: TLS
        try c.register(name: name, role: .presenter, passcode: passcode, resumeToken: token)
        return c
    }

    func centre(_ conn: LecternConnection) throws -> RGB { try PNG.decode(conn.screenshot()).pixel(x: 640, y: 360) }

    func testKill9DuringAClipPausedThenPlayingComesBackAtItsPosition() throws {
        let s = ApplianceServiceTests.Setup()
        try s.writeConfig(passcode: "clip-restart")
        var (p, port) = try s.start()
        let a = try connect(port, "clip-restart")
        _ = try a.requestFloor()
        let clip = try a.upload(path: try redThenBlueClip(in: s.dir))
        let token = try XCTUnwrap(a.registration?.resumeToken)

        // Paused at 8 s (blue), then killed.
        _ = try a.request(.clipPlay(content: clip.content, loop: false))
        _ = try a.waitForState { $0.screen.clip?.state == .playing }
        _ = try a.request(.clipPause)
        _ = try a.request(.clipSeek(positionMs: 8000))
        try eventually("the paused clip at 8 s in state.json", timeout: 10) {
            let c = self.savedClip(s.dir)
            return c?["paused"] as? Bool == true && (c?["position"] as? Double).map { abs($0 - 8) < 0.05 } == true
        }
        try eventually("the blue half on the wall", timeout: 10) { self.isBlue(try self.centre(a)) }
        p.kill(SIGKILL)
        XCTAssertEqual(p.waitForExit(), SIGKILL)

        (p, port) = try s.start(port: port)
        let b = try connect(port, "clip-restart", token: token)
        let back = try b.waitForState(timeout: 15) { $0.screen.clip != nil }
        XCTAssertEqual(back.screen.content?.id, clip.content)
        XCTAssertEqual(back.screen.clip?.state, .paused)
        XCTAssertEqual(Double(back.screen.clip?.positionMs ?? 0), 8000, accuracy: 50)
        try eventually("the paused clip's blue frame on the wall again", timeout: 15) { self.isBlue(try self.centre(b)) }
        // Paused means paused: a second later it is still where it was.
        let later = try b.state()
        XCTAssertEqual(later.screen.clip?.state, .paused)
        XCTAssertEqual(Double(later.screen.clip?.positionMs ?? 0), 8000, accuracy: 50)

        // Now playing from 1 s (red), killed while it plays.
        XCTAssertTrue(b.registration?.floorRestored == true)
        _ = try b.request(.clipSeek(positionMs: 1000))
        _ = try b.request(.clipResume)
        let playing = try b.waitForState { ($0.screen.clip?.positionMs ?? 0) >= 2500 && $0.screen.clip?.state == .playing }
        let pushedAt = MonotonicClock.now()
        let pushedPosition = Double(playing.screen.clip!.positionMs) / 1000
        p.kill(SIGKILL)
        let killedAt = MonotonicClock.now()
        XCTAssertEqual(p.waitForExit(), SIGKILL)
        // Where it was when killed, from the last push (pushed twice a second) and the time since.
        let positionAtKill = pushedPosition + (killedAt - pushedAt)
        let saved = try XCTUnwrap(savedClip(s.dir), "no clip in the saved state")
        XCTAssertEqual(saved["paused"] as? Bool, false)
        let savedPosition = try XCTUnwrap(saved["position"] as? Double)
        XCTAssertLessThan(abs(positionAtKill - savedPosition), 1.0, "saved \(savedPosition) s, it was at \(positionAtKill) s")

        let restartedAt = MonotonicClock.now()
        (p, port) = try s.start(port: port)
        let c = try connect(port, "clip-restart", name: "C")
        let again = try c.waitForState(timeout: 15) { $0.screen.clip != nil }
        let sinceRestart = MonotonicClock.now() - restartedAt
        XCTAssertEqual(again.screen.clip?.state, .playing)
        let restored = Double(again.screen.clip?.positionMs ?? 0) / 1000
        XCTAssertGreaterThanOrEqual(restored, savedPosition - 0.05)
        XCTAssertLessThanOrEqual(restored, savedPosition + sinceRestart + 0.1)
        XCTAssertLessThan(abs(restored - positionAtKill), 1.0 + sinceRestart, "back at \(restored) s, it was at \(positionAtKill) s")
        try eventually("the red half playing on the wall again", timeout: 15) { self.isRed(try self.centre(c)) }
        // It plays on: the position climbs.
        _ = try c.waitForState(timeout: 10) { Double($0.screen.clip?.positionMs ?? 0) / 1000 > restored + 0.4 }
        print("clip restart: saved \(String(format: "%.2f", savedPosition)) s, was at \(String(format: "%.2f", positionAtKill)) s")
    }
}
