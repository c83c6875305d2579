import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol
import LecternRender
import LecternTestSupport
import XCTest

/// A live share and the rest of the room (docs/protocol.md §29.8), against a real service
/// over real TLS sockets, read back from the wall's pixels: a poll's card goes over a share
/// without ending it; ink and the pointer go over it in its pane's coordinates; viewers get
/// its pictures; the meeting record keeps it; `/metrics` counts it.
final class ShareInTheRoomTests: XCTestCase {
    /// Ana shares a red 4:3 stream for `seconds` (sent on a thread of its own, at 25 fps, a
    /// key frame a second); returns once it is red on the wall. The thread is waited for by
    /// `done` (it stops early once the share has ended).
    struct Sharing {
        let done: DispatchSemaphore
    }

    static func share(_ ana: LecternConnection, in dir: String, seconds: Int = 6, color: String = "red") throws -> Sharing {
        let units = try ShareOverTCPTests.units(
            try Fixtures.annexB(in: dir, width: 640, height: 480, frames: seconds * 25, fps: 25, color: color, name: "\(color).h264"))
        let ready = try ana.beginShare(ShareConfig(codec: .h264, width: 640, height: 480, frameRate: 25, bitrate: 2_000_000))
        XCTAssertEqual(ready.status, .live)
        let done = DispatchSemaphore(value: 0)
        let frames = units.map { ($0.bytes, $0.key) }
        Thread.detachNewThread {
            ShareOverTCPTests.send(frames, on: ana, fps: 25)
            done.signal()
        }
        try eventually("the share on the wall", timeout: 10, interval: 0.1) { Self.red(try ShareOverTCPTests.wall(ana).pixel(x: 960, y: 540)) }
        return Sharing(done: done)
    }

    static func red(_ p: RGB) -> Bool { ShareOverTCPTests.isColour(p, r: 255, g: 0, b: 0) }

    func testAPollsCardGoesOverAShareAndDoesNotEndIt() throws {
        let h = try ServiceHarness(floor: .open)
        let ana = try h.presenter("Ana")
        let sharing = try Self.share(ana, in: h.dir)
        _ = try ana.request(.pollAsk(PollDraft(question: "Ship it this week?", kind: .yesno)))
        _ = try ana.request(.pollClose(poll: 0))
        _ = try ana.request(.pollShow(PollShow(poll: 0, results: true, answer: false)))
        // The card's white panel in the middle (8 % margins), the share around it.
        let panel = WallCard.panelRect(width: 1920, height: 1080, overscanPercent: 0)
        try eventually("the card over the share", timeout: 10, interval: 0.1) {
            let w = try ShareOverTCPTests.wall(ana)
            return w.pixel(x: panel.x + 4, y: panel.y + 4) == .white && Self.red(w.pixel(x: 300, y: panel.maxY + 20))
                && w.pixel(x: 100, y: 540) == .black
        }
        XCTAssertEqual(try ana.state().shares?.map(\.status), [.live], "the card didn't end the share")
        XCTAssertFalse(ana.shareEvents().contains { if case .ended = $0 { return true } else { return false } })
        // The card off: the share alone again.
        _ = try ana.request(.pollShow(PollShow(poll: 0, results: false, answer: false)))
        try eventually("the card gone", timeout: 10, interval: 0.1) { Self.red(try ShareOverTCPTests.wall(ana).pixel(x: panel.x + 100, y: panel.y + 4)) }
        _ = try ana.request(.share(.control(.stop)))
        sharing.done.wait()
    }

    func testInkAndThePointerGoOverAShareInItsPanesCoordinatesAndGoWithIt() throws {
        let h = try ServiceHarness(floor: .open)
        let ana = try h.presenter("Ana")
        let sharing = try Self.share(ana, in: h.dir)
        // The pane is the whole wall: its box is the output.
        try eventually("the state's ink box is the share's pane", timeout: 5, interval: 0.1) {
            try ana.state().ink?.box == InkSnapshot.Box(x: 0, y: 0, width: 1, height: 1)
        }
        let ink = try XCTUnwrap(InkPalette.color(index: 2))   // blue
        try ana.draw([InkPoint(px: 0.3, py: 0.5), InkPoint(px: 0.7, py: 0.5)], width: .thick, colorIndex: 2)
        try eventually("the stroke over the moving share", timeout: 5, interval: 0.1) {
            let w = try ShareOverTCPTests.wall(ana)
            return ShareOverTCPTests.isColour(w.pixel(x: 960, y: 540), r: Int(ink.r), g: Int(ink.g), b: Int(ink.b)) && Self.red(w.pixel(x: 960, y: 400))
        }
        // The pointer: its dot where it points.
        try ana.confirm([ana.point(x: 0.25, y: 0.25)])
        var seen = ""
        try eventually("the pointer over the share (\(seen))", timeout: 5, interval: 0.05) {
            let w = try ShareOverTCPTests.wall(ana)
            seen = (0..<12).map { "\(w.pixel(x: 450 + $0 * 5, y: 270))" }.joined(separator: " ")
            // The dot's own red (255, 32, 32), not the share's (254, 0, 0).
            return (0..<60).contains { d in
                let p = w.pixel(x: 450 + d, y: 270)
                return p.r > 245 && (24...40).contains(p.g) && (24...40).contains(p.b)
            }
        }
        XCTAssertEqual(try ana.state().ink?.strokes, 1)
        // The share ends: its ink goes with it (nothing saved for a share that is gone).
        _ = try ana.request(.share(.control(.stop)))
        sharing.done.wait()
        try eventually("the share's ink gone", timeout: 5, interval: 0.1) { try ana.state().ink?.strokes == 0 }
        XCTAssertEqual(try ana.state().ink?.box, nil, "no ink surface on the idle screen")
    }

    func testViewersGetTheShareOnTheWallAsJPEGsEncodedOnceASize() throws {
        let h = try ServiceHarness(floor: .open)
        let ana = try h.presenter("Ana")
        let viewers = try (0..<3).map { i -> LecternConnection in
            let c = try h.connect()
            let p = c.hello.parameters(for: .viewer)!
            try c.register(name: "V\(i)", role: .viewer, key: PasscodeHash.deriveKey(passcode: ServiceHarness.presenterPass, salt: p.salt, rounds: p.rounds))
            return c
        }
        XCTAssertServerError(.shareNoPicture, try viewers[0].sharePicture(of: ana.deviceID, maxWidth: 640))
        let sharing = try Self.share(ana, in: h.dir)
        // Each viewer follows it as the web page does: one picture at a time, two a second.
        var bytes = 0, pictures = 0
        let start = MonotonicClock.now()
        for round in 0..<6 {
            MonotonicClock.sleep(until: start + Double(round) * 0.5)   // the viewer's pace, not a wait for the service
            for v in viewers {
                let jpeg = try v.sharePicture(of: ana.deviceID, maxWidth: 640)
                XCTAssertEqual(Array(jpeg.prefix(3)), [0xFF, 0xD8, 0xFF], "a JPEG")
                let f = try JPEG.decode([UInt8](jpeg))
                XCTAssertEqual(f.width, 640)
                XCTAssertEqual(f.height, 360)
                XCTAssertTrue(Self.red(f.pixel(x: 320, y: 180)), "the share's picture: \(f.pixel(x: 320, y: 180))")
                XCTAssertEqual(f.pixel(x: 20, y: 180).r < 30, true, "its bars")
                bytes += jpeg.count
                pictures += 1
            }
        }
        let seconds = MonotonicClock.now() - start
        print(
            "share for viewers: \(pictures / viewers.count) pictures of \(bytes / pictures) bytes each, \(Int(Double(bytes / viewers.count) / seconds)) bytes a viewer a second (640 wide, 2 a second)"
        )
        _ = try ana.request(.share(.control(.stop)))
        sharing.done.wait()
        XCTAssertServerError(.shareNoPicture, try viewers[0].sharePicture(of: ana.deviceID, maxWidth: 640), "gone with the share")
    }

    func testTheMeetingRecordKeepsAShareWithItsPicturesNameAndDuration() throws {
        let h = try ServiceHarness(floor: .open, room: "Board Room")
        let ana = try h.presenter("Ana")
        let sharing = try Self.share(ana, in: h.dir, seconds: 4)
        sharing.done.wait()   // the whole stream sent: its last picture is on the wall
        _ = try ana.request(.share(.control(.stop)))
        let mod = try h.moderator()
        let (data, pages) = try mod.meetingRecord { _, _ in }
        XCTAssertEqual(pages, 2, "the cover and the share")
        let pdf = try MeetingRecordTests.save(data, h.dir)
        let text = try MeetingRecordTests.text(pdf, page: 2)
        XCTAssertTrue(text.contains("Shared screen: Ana"), text)
        XCTAssertTrue(text.contains("0:0"), "its duration: \(text)")
        XCTAssertTrue(text.contains("When it started") && text.contains("When it ended"), text)
        XCTAssertTrue(try MeetingRecordTests.text(pdf, page: 1).contains("Ana"), "the cover names the sharer")
        let page = try Fixtures.pdftoppm(pdf, page: 2, width: 960, height: 540)
        // Both pictures (each the 16:9 pane with the 4:3 share in it): red in the middle of each box.
        XCTAssertTrue(Self.red(page.pixel(x: 247, y: 205)), "the start picture: \(page.pixel(x: 247, y: 205))")
        XCTAssertTrue(Self.red(page.pixel(x: 712, y: 205)), "the end picture: \(page.pixel(x: 712, y: 205))")
        // The meeting ends: the pictures go with the record.
        let frames = h.dir + "/data/record-frames"
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: frames).count, 2)
        _ = try mod.request(.audienceSet(.endMeeting))
        try eventually("the record's pictures removed", timeout: 5, interval: 0.1) { !FileManager.default.fileExists(atPath: frames) }
    }

    func testMetricsCountSharesTheirFrameRateAndDrops() throws {
        let h = try ServiceHarness(floor: .open) { $0.metricsAddress = ListenAddress(host: "127.0.0.1", port: 0) }
        let metrics = Scraper()
        let before = try metrics.scrape(h)
        XCTAssertEqual(before.value("lectern_shares_total"), 0)
        XCTAssertEqual(before.value("lectern_share_frames_per_second", ["pane": "0"]), 0)
        let ana = try h.presenter("Ana")
        let sharing = try Self.share(ana, in: h.dir, seconds: 6)
        _ = try metrics.scrape(h)
        MonotonicClock.sleep(until: MonotonicClock.now() + 1)   // a second of frames between two scrapes: the rate's span
        let live = try metrics.scrape(h)
        XCTAssertEqual(live.value("lectern_shares_total"), 1)
        XCTAssertEqual(live.value("lectern_shares_live"), 1)
        XCTAssertGreaterThan(live.value("lectern_share_frames_decoded_total") ?? 0, 10)
        let fps: Double = try XCTUnwrap(live.value("lectern_share_frames_per_second", ["pane": "0"]))
        XCTAssertTrue((15...35).contains(fps), "about 25 frames a second: \(fps)")
        XCTAssertNotNil(live.value("lectern_share_frames_dropped_total"))
        _ = try ana.request(.share(.control(.stop)))
        sharing.done.wait()
        let after = try metrics.scrape(h)
        XCTAssertEqual(after.value("lectern_shares_live"), 0)
        XCTAssertEqual(after.value("lectern_share_frames_per_second", ["pane": "0"]), 0)
        XCTAssertGreaterThanOrEqual(after.value("lectern_share_frames_decoded_total") ?? 0, live.value("lectern_share_frames_decoded_total") ?? 0)
    }

    /// `/metrics` over real TCP (curl), parsed strictly (`MetricsTests` checks it with promtool too).
    struct Scraper {
        func scrape(_ h: ServiceHarness) throws -> PrometheusText {
            let port = try XCTUnwrap(h.service.metricsPort)
            let r = try Fixtures.run("curl", ["-sS", "--fail", "--max-time", "10", "http://127.0.0.1:\(port)/metrics"])
            XCTAssertEqual(r.status, 0, r.err)
            return try PrometheusText(String(decoding: r.out, as: UTF8.self))
        }
    }
}
