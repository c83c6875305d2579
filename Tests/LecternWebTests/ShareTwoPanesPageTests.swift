import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
import LecternTestSupport
import XCTest

/// Issue 28's "done when" scene in one test, from browsers (docs/protocol.md §29): a
/// moderated room split in two; a laptop's tab with sound (a canvas and a 1 kHz tone, as
/// `ShareSoundPageTests` hands it out) shares into pane 0, a phone's camera (Chromium's fake
/// one) into pane 1, at the same time. Both are live in their panes, the tone reaches the
/// sound device, the wall shows the canvas on the left and the moving camera on the right;
/// the laptop stops and the phone's share goes on, the sound with the laptop's share gone.
final class ShareTwoPanesPageTests: XCTestCase {
    /// Pixels of the wall's `half` (0 left, 1 right) within 24 of the canvas's ground (#102040).
    static func ground(_ w: Frame, half: Int) -> Int {
        var n = 0
        for y in stride(from: 0, to: w.height, by: 4) {
            for x in stride(from: half * w.width / 2, to: (half + 1) * w.width / 2, by: 4) {
                let p = w.pixel(x: x, y: y)
                if abs(Int(p.r) - 0x10) < 24 && abs(Int(p.g) - 0x20) < 24 && abs(Int(p.b) - 0x40) < 24 { n += 1 }
            }
        }
        return n
    }

    /// How many sampled pixels of the right half differ between `a` and `b`.
    static func rightHalfChanged(_ a: Frame, _ b: Frame) -> Int {
        var n = 0
        for y in stride(from: 0, to: a.height, by: 4) {
            for x in stride(from: a.width / 2, to: a.width, by: 4) where a.pixel(x: x, y: y) != b.pixel(x: x, y: y) { n += 1 }
        }
        return n
    }

    func testALaptopTabWithSoundAndAPhoneCameraShareIntoTwoPanesAtOnce() throws {
        let dir = Fixtures.tempDir("share-two-panes")
        let raw = dir + "/played.raw"
        let h = try ServiceHarness.web(floor: .moderated) { $0.audioDevice = AudioDevice("file:FILE=\(raw),FORMAT=raw") }
        let mod = try h.moderator("Chair")
        let laptop = try h.browser(width: 1366, height: 768, arguments: ["--autoplay-policy=no-user-gesture-required"])
        try h.joinAndWait(laptop, name: "Ana")
        let phone = try h.browser(width: 390, height: 844, arguments: ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"])
        try h.joinAndWait(phone, name: "Ben")
        let ana = try XCTUnwrap(try h.device(named: "Ana")).id, ben = try XCTUnwrap(try h.device(named: "Ben")).id
        _ = try mod.request(.layoutSet(.split))
        _ = try mod.request(.paneSet(PaneRequest(pane: 0, .assign(ana))))
        _ = try mod.request(.paneSet(PaneRequest(pane: 1, .assign(ben))))

        try laptop.execute(ShareSoundPageTests.canvasWithTone)
        try laptop.click("#share-screen")
        try phone.click("#share-camera")
        try laptop.poll("both live", timeout: 30) { (try h.snapshot().shares ?? []).filter { $0.status == .live }.count == 2 }
        let s = try h.snapshot()
        XCTAssertEqual(s.layout?.panes[0].share, ana, "the laptop's tab in pane 0")
        XCTAssertEqual(s.layout?.panes[1].share, ben, "the phone's camera in pane 1")
        XCTAssertEqual(s.shares?.first { $0.device == ben }?.source, "camera")

        // The tab's sound: 1 kHz on the device while both share.
        try eventually("sound on the device", timeout: 15, interval: 0.1) { ShareSoundPageTests.size(raw) > 48_000 * 4 / 2 }
        let tone = try ShareSoundPageTests.listen(raw, after: ShareSoundPageTests.size(raw))
        XCTAssertEqual(Double(tone.crossings), 2000, accuracy: 60, "1 kHz")
        XCTAssertGreaterThan(tone.peak, 4000, "the tone, not silence")

        // The wall: the canvas's ground on the left, the camera moving on the right.
        try eventually("the canvas in pane 0", timeout: 15, interval: 0.2) { Self.ground(try SharePageTests.wall(mod), half: 0) > 5000 }
        var before = try SharePageTests.wall(mod)
        try eventually("the camera moving in pane 1", timeout: 15, interval: 0.2) {
            let now = try SharePageTests.wall(mod)
            defer { before = now }
            return Self.rightHalfChanged(before, now) > 200
        }
        XCTAssertLessThan(Self.ground(try SharePageTests.wall(mod), half: 1), 100, "the canvas is not in pane 1")

        // The laptop stops: its pane is its own again, the phone's share goes on, no sound.
        try laptop.click("#share-stop")
        try laptop.poll("the laptop's share ended") { (try h.snapshot().shares ?? []).map(\.device) == [ben] }
        XCTAssertEqual(try h.snapshot().shares?.first?.status, .live)
        XCTAssertNil(try h.snapshot().layout?.panes[0].share)
        try eventually("the canvas gone from pane 0", timeout: 10, interval: 0.2) { Self.ground(try SharePageTests.wall(mod), half: 0) < 100 }
        let end = ShareSoundPageTests.size(raw)
        try assertRightHalfMoves(mod)
        XCTAssertLessThan(ShareSoundPageTests.size(raw) - end, 48_000 * 4 / 5, "the sound stopped with the laptop's share")
        try phone.click("#share-stop")
        try phone.poll("stopped") { try h.snapshot().shares == nil }
    }

    /// Pane 1 still moves (the phone's share goes on).
    func assertRightHalfMoves(_ mod: LecternConnection) throws {
        var before = try SharePageTests.wall(mod)
        try eventually("pane 1 still moving", timeout: 10, interval: 0.2) {
            let now = try SharePageTests.wall(mod)
            defer { before = now }
            return Self.rightHalfChanged(before, now) > 200
        }
    }
}
