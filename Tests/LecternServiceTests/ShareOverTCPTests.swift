import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol
import LecternRender
import LecternTestSupport
import XCTest

/// Live sharing against a real service over real TLS sockets (docs/protocol.md §29): media
/// frames made by ffmpeg, sent at a live encoder's pace, reach the wall's pixels in the
/// right pane; a damaged stream ends that share alone, with its error, and leaves the wall
/// and the other pane as they were.
final class ShareOverTCPTests: XCTestCase {
    static func units(_ path: String) throws -> [AnnexBSplitter.Unit] {
        var s = AnnexBSplitter()
        var u = s.feed([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        if let last = s.finish() { u.append(last) }
        return u
    }

    /// Sends `frames` at `fps`, as a live encoder hands them out; returns the next sequence.
    @discardableResult
    static func send(_ frames: [(data: [UInt8], key: Bool)], on c: LecternConnection, fps: Double, from first: UInt32 = 0) -> UInt32 {
        var seq = first
        let start = MonotonicClock.now()
        for (i, f) in frames.enumerated() {
            MonotonicClock.sleep(until: start + Double(i) / fps)   // the sender's pace, not a wait for the service
            _ = c.sendShareFrame(ShareFrame(sequence: seq, timestamp: UInt64(MonotonicClock.now() * 1e6), key: f.key, data: f.data), wait: 1)
            seq += 1
        }
        return seq
    }

    static func wall(_ c: LecternConnection) throws -> Frame { try PNG.decode(c.screenshot()) }

    /// The wall's left half (pane 0 of a split).
    static func leftHalf(_ f: Frame) -> Frame {
        let out = Frame(width: f.width / 2, height: f.height)
        for y in 0..<f.height { (out.baseAddress + y * out.stride).copyMemory(from: f.baseAddress + y * f.stride, byteCount: out.width * 4) }
        return out
    }

    static func isColour(_ p: RGB, r: Int, g: Int, b: Int) -> Bool {
        abs(Int(p.r) - r) < 40 && abs(Int(p.g) - g) < 40 && abs(Int(p.b) - b) < 40
    }

    /// The share's events until one matches (acks pile in the inbox as the decoder handles frames).
    static func waitFor(_ c: LecternConnection, _ what: String, timeout: Double = 10, _ match: (ShareMessage) -> Bool) throws -> ShareMessage {
        var found: ShareMessage?
        try eventually(what, timeout: timeout, interval: 0.05) {
            found = c.shareEvents().first(where: match)
            return found != nil
        }
        return found!
    }

    func testAShareGoesOnTheWallFittedWithBarsAndIsAcknowledged() throws {
        let h = try ServiceHarness(floor: .open)
        let ana = try h.presenter("Ana")
        let red = try Self.units(try Fixtures.annexB(in: h.dir, width: 640, height: 480, frames: 40, fps: 25, color: "red"))
        XCTAssertEqual(red.count, 40)
        let ready = try ana.beginShare(ShareConfig(codec: .h264, width: 640, height: 480, frameRate: 25, bitrate: 2_000_000))
        XCTAssertEqual(ready, ShareReady(status: .live, pane: 0, frameRate: 25, bitrate: 2_000_000), "an open room: it takes the floor")
        Self.send(red.map { ($0.bytes, $0.key) }, on: ana, fps: 25)
        // 4:3 in 16:9: 1440×1080 in the middle, 240-pixel bars either side.
        try eventually("the share's red on the wall", timeout: 10, interval: 0.1) {
            let w = try Self.wall(ana)
            return Self.isColour(w.pixel(x: 960, y: 540), r: 255, g: 0, b: 0) && Self.isColour(w.pixel(x: 250, y: 540), r: 255, g: 0, b: 0)
                && w.pixel(x: 230, y: 540) == .black && w.pixel(x: 1690, y: 540) == .black
        }
        let ack = try Self.waitFor(ana, "the last frame acknowledged") { if case .ack(let a) = $0 { return a.sequence == 39 } else { return false } }
        guard case .ack(let a) = ack else { return XCTFail() }
        XCTAssertEqual(Int(a.decoded) + Int(a.dropped), 40)
        let s = try ana.state()
        XCTAssertEqual(s.shares?.map(\.status), [.live])
        XCTAssertEqual(s.layout?.panes[0].share, ana.deviceID)
        XCTAssertEqual(s.shares?.first?.width, 640)

        // Pause: the last picture stays, with the pause sign in the corner.
        _ = try ana.request(.share(.control(.pause)))
        try eventually("the pause sign", timeout: 5, interval: 0.1) {
            let w = try Self.wall(ana)
            let side = 1080 / 10
            return w.pixel(x: 1920 - side / 2 - side + 4, y: side / 2 + 4) == RGB(0x20, 0x20, 0x20)
                && Self.isColour(w.pixel(x: 960, y: 540), r: 255, g: 0, b: 0)
        }
        _ = try ana.request(.share(.control(.stop)))
        try eventually("the idle screen back", timeout: 5, interval: 0.1) { !Self.isColour(try Self.wall(ana).pixel(x: 960, y: 540), r: 255, g: 0, b: 0) }
        XCTAssertNil(try ana.state().shares)
    }

    /// A split: Ana's deck in pane 0, Ben's share in pane 1. Ana turns her page while Ben
    /// shares; Ben's stream then goes bad three ways, each ending his share with its error,
    /// and pane 0 is the same to the pixel each time.
    func testAShareBesideADeckAndDamagedStreamsEndOnlyThatShare() throws {
        let h = try ServiceHarness(floor: .moderated)
        let mod = try h.moderator()
        let ana = try h.presenter("Ana")
        let ben = try h.presenter("Ben")
        let pdf = try Fixtures.numberedDeck(count: 3, in: h.dir)
        _ = try ana.requestFloor()
        try mod.moderate(.grant, target: ana.deviceID)
        let deck = try ana.upload(path: pdf).content
        try ana.present(deck, page: 1)
        _ = try mod.request(.layoutSet(.split))
        _ = try mod.request(.paneSet(PaneRequest(pane: 1, .assign(ben.deviceID))))
        let green = try Self.units(try Fixtures.annexB(in: h.dir, width: 640, height: 360, frames: 30, fps: 30, color: "lime", keyEvery: 10))
        let config = ShareConfig(codec: .h264, width: 640, height: 360, frameRate: 30, bitrate: 2_000_000)
        func shareGreen() throws {
            let ready = try ben.beginShare(config)
            XCTAssertEqual(ready.pane, 1)
            XCTAssertEqual(ready.status, .live)
            Self.send(green.map { ($0.bytes, $0.key) }, on: ben, fps: 30)
            try eventually("Ben's green in pane 1", timeout: 10, interval: 0.1) { Self.isColour(try Self.wall(ben).pixel(x: 1440, y: 540), r: 0, g: 255, b: 0) }
        }
        try shareGreen()
        try ana.control(.next)
        try eventually("Ana's page 2 in pane 0", timeout: 10, interval: 0.1) { try ana.state().layout?.panes[0].screen.page == 2 }
        let left = Self.leftHalf(try Self.wall(ana))

        func assertEnded(_ code: ErrorCode, _ what: String) throws {
            let ended = try Self.waitFor(ben, what, timeout: 15) { if case .ended = $0 { return true } else { return false } }
            guard case .ended(let e) = ended else { return XCTFail() }
            XCTAssertEqual(e.code, code, "\(what): \(e.message)")
            try eventually("pane 1 back to its screen", timeout: 5, interval: 0.1) {
                !Self.isColour(try Self.wall(ben).pixel(x: 1440, y: 540), r: 0, g: 255, b: 0)
            }
            XCTAssertNil(try ben.state().shares, what)
            let now = Self.leftHalf(try Self.wall(ana))
            XCTAssertEqual(PixelCompare.differingPixels(now, left), 0, "\(what): Ana's pane untouched")
            XCTAssertEqual(try ana.state().layout?.panes[0].screen.page, 2)
        }

        // 1. Random bytes after a valid start.
        var noise = SystemRandomNumberGenerator()
        let junk = (0..<20).map { _ in ([0, 0, 0, 1, 0x41] + (0..<3000).map { _ in UInt8.random(in: 0...255, using: &noise) }, false) }
        Self.send(junk, on: ben, fps: 30, from: 30)
        try assertEnded(.shareDamaged, "random bytes")

        // 2. A key frame whose SPS says 16384×16384.
        try shareGreen()
        Self.send([(Fixtures.hugeSPSKeyFrame(), true)], on: ben, fps: 30, from: 30)
        try assertEnded(.shareDamaged, "a 16384×16384 SPS")

        // 3. A flood of key frames: ten times the frame rate announced.
        try shareGreen()
        let key = green[0].bytes
        Self.send(Array(repeating: (key, true), count: 900), on: ben, fps: 300, from: 30)
        try assertEnded(.shareUnsupported, "a flood of key frames")
        XCTAssertTrue(try mod.request(.ping(nonce: 5)) == .pong(nonce: 5), "the service is fine")
    }

    func testAVP8ShareShowsItsPicture() throws {
        let h = try ServiceHarness(floor: .open)
        let ana = try h.presenter("Ana")
        let blue = try Fixtures.vp8Frames(in: h.dir, width: 640, height: 480, frames: 30)
        XCTAssertEqual(blue.count, 30)
        _ = try ana.beginShare(ShareConfig(codec: .vp8, width: 640, height: 480, frameRate: 30, bitrate: 2_000_000))
        Self.send(blue.enumerated().map { ($0.element, $0.offset == 0) }, on: ana, fps: 30)
        try eventually("the VP8 share's blue on the wall", timeout: 10, interval: 0.1) {
            Self.isColour(try Self.wall(ana).pixel(x: 960, y: 540), r: 0, g: 0, b: 255)
        }
    }
}
