import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// Clips through the protocol on the virtual display: play over a slide, pause, seek, stop,
/// and the slide comes back when the clip ends or stops.
final class ClipOverTCPTests: XCTestCase {
    func isRed(_ c: RGB) -> Bool { c.r > 200 && c.g < 70 && c.b < 70 }

    func waitForScreen(_ conn: LecternConnection, _ what: String, timeout: Double = 15, _ check: (Frame) -> Bool) throws -> Frame {
        var shown: Frame?
        try eventually("the screen to show \(what)", timeout: timeout, interval: 0.05) {
            shown = try PNG.decode(conn.screenshot())
            return check(shown!)
        }
        return shown!
    }

    func testPlayPauseSeekStopAndTheSlideComesBack() throws {
        let h = try ServiceHarness(floor: .open)
        let a = try h.presenter("A")
        _ = try a.requestFloor()
        let dir = Fixtures.tempDir("clips")
        let deck = try Fixtures.numberedDeck(count: 3, in: dir)
        try a.present(try a.upload(path: deck).content, page: 2)
        let slide = try h.expectedFrame(pdf: deck, page: 2)

        let clip = try a.upload(path: try Fixtures.clip(in: dir, seconds: 3))
        XCTAssertEqual(clip.kind, .clip)
        // Looping, so that it is still playing when the checks below pause it, however slow the machine.
        _ = try a.request(.clipPlay(content: clip.content, loop: true))
        let playing = try waitForScreen(a, "the red clip, pillarboxed") { f in
            self.isRed(f.pixel(x: 960, y: 540)) && f.isUniform(PixelRect(x: 0, y: 0, width: 240, height: 1080), .black)
                && f.isUniform(PixelRect(x: 1680, y: 0, width: 240, height: 1080), .black)
        }
        XCTAssertTrue(isRed(playing.pixel(x: 241, y: 2)))
        let s = try a.waitForState { $0.screen.clip?.state == .playing }
        XCTAssertEqual(s.screen.content?.kind, .clip)
        XCTAssertEqual(Double(s.screen.clip?.durationMs ?? 0), 3000, accuracy: 100)

        // The counts travel in the state: frames shown climb while it plays.
        let counted = try a.waitForState { ($0.screen.clip?.presentedFrames ?? 0) > 5 }
        XCTAssertLessThanOrEqual(counted.screen.clip?.droppedFrames ?? 99, counted.screen.clip?.presentedFrames ?? 0)
        _ = try a.request(.clipPause)
        XCTAssertEqual(try a.waitForState { $0.screen.clip?.state == .paused }.screen.clip?.state, .paused)
        _ = try a.request(.clipSeek(positionMs: 1000))
        XCTAssertServerError(.seekOutOfRange, try a.request(.clipSeek(positionMs: 60_000)))
        _ = try a.request(.clipResume)
        _ = try a.request(.clipStop)
        // Stop: exactly the slide that was on screen before, and no clip in the state.
        _ = try waitForScreen(a, "the slide again") { PixelCompare.differingPixels($0, slide) == 0 }
        let after = try a.waitForState { $0.screen.clip == nil }
        XCTAssertEqual(after.screen.page, 2)
        XCTAssertServerError(.noClip, try a.request(.clipPause))

        // A clip that plays to its end brings the slide back too.
        let short = try a.upload(path: try Fixtures.clip(in: dir, color: "blue", seconds: 3, name: "short.mp4"))
        _ = try a.request(.clipPlay(content: short.content, loop: false))
        _ = try a.waitForState(timeout: 15) { $0.screen.clip != nil }
        _ = try a.waitForState(timeout: 15) { $0.screen.clip == nil }
        _ = try waitForScreen(a, "the slide after the end") { PixelCompare.differingPixels($0, slide) == 0 }

        // The wrong command for the kind says which to use; others can't drive.
        XCTAssertServerError(.wrongKind, try a.present(short.content))
        let b = try h.presenter("B")
        XCTAssertServerError(.floorTaken, try b.request(.clipPlay(content: short.content, loop: false)))
    }

    /// clip-loop mid-play: a clip started once loops when asked (its position wraps to the
    /// start), and ends at its end once looping is turned off again; the state says so.
    func testLoopCanBeTurnedOnAndOffMidPlay() throws {
        let h = try ServiceHarness(floor: .open)
        let a = try h.presenter("A")
        _ = try a.requestFloor()
        let dir = Fixtures.tempDir("clips")
        let deck = try Fixtures.numberedDeck(count: 3, in: dir)
        try a.present(try a.upload(path: deck).content, page: 2)
        let clip = try a.upload(path: try Fixtures.clip(in: dir, seconds: 2))
        _ = try a.request(.clipPlay(content: clip.content, loop: false))
        _ = try a.waitForState { $0.screen.clip?.state == .playing && $0.screen.clip?.loop == false }
        XCTAssertEqual(try a.request(.clipLoop(true)), .clipLoopOK)
        XCTAssertEqual(try a.waitForState { $0.screen.clip?.loop == true }.screen.clip?.loop, true)
        // Past its end and still on screen, from the start again.
        var highest: UInt32 = 0
        _ = try a.waitForState(timeout: 15) { s in
            guard let c = s.screen.clip else { return false }
            if c.positionMs > highest { highest = c.positionMs }
            return highest >= 1000 && c.positionMs < highest - 500
        }
        XCTAssertNotNil(try h.connect().hello, "still serving")
        XCTAssertNotNil(try a.waitForState { _ in true }.screen.clip, "the clip looped instead of ending")
        // Looping off: it ends at its end, back on the slide it interrupted.
        _ = try a.request(.clipLoop(false))
        let after = try a.waitForState(timeout: 15) { $0.screen.clip == nil }
        XCTAssertEqual(after.screen.page, 2)
        XCTAssertServerError(.noClip, try a.request(.clipLoop(true)))
    }

    /// upload-stored and upload-ready (status 1) carry the clip's length, as the state shows it.
    func testUploadStoredAndReadyCarryTheClipsDuration() throws {
        let h = try ServiceHarness(floor: .open)
        let a = try h.presenter("A")
        let path = try Fixtures.clip(in: Fixtures.tempDir("duration"), seconds: 4)
        let stored = try a.upload(path: path)
        XCTAssertEqual(Double(stored.durationMs), 4000, accuracy: 100)
        let again = try h.presenter("B").upload(path: path)   // possession proved: upload-ready status 1
        XCTAssertEqual(again.durationMs, stored.durationMs)
    }

    func testAClipThatCantPlayIsRefusedAtUpload() throws {
        let h = try ServiceHarness()
        let a = try h.presenter("A")
        let dir = Fixtures.tempDir("badclip")
        // An MP4 with audio only: refused, saying why.
        let path = dir + "/voice.mp4"
        let r = try Fixtures.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "aac", path])
        XCTAssertEqual(r.status, 0, r.err)
        do {
            _ = try a.upload(path: path)
            XCTFail("an audio-only file was accepted")
        } catch let e as LecternConnection.ClientError {
            XCTAssertEqual(e.lecternError?.code, .unreadableContent)
            XCTAssertTrue(e.description.contains("video"), e.description)
        }
    }
}
