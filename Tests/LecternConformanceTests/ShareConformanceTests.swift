import Foundation
import LecternModel
import LecternTestSupport
import XCTest

/// §19's rules C114–C119, live sharing (§29, protocol 1.2), from outside: frames written
/// byte by byte from docs/protocol.md over a real TLS socket to a real service.
final class ShareConformanceTests: ConformanceTestCase {
    /// share-begin's body: codec, source, placement, reserved, width, height, frame rate, bitrate.
    func begin(codec: UInt8 = 1, placement: UInt8 = 0, width: UInt16 = 1280, height: UInt16 = 720, fps: UInt16 = 30, bitrate: UInt32 = 4_000_000) -> [UInt8] {
        [codec, 1, placement, 0] + u16(width) + u16(height) + u16(fps) + u32(bitrate)
    }

    func testC114ABeginOutsideTheLimitsIsRefusedAndTheConnectionStays() throws {
        try start(.open)
        let ana = try join("Ana")
        for body in [begin(width: 16384, height: 16384), begin(width: 1920, height: 1201), begin(fps: 61), begin(bitrate: 20_000_001)] {
            let e = expectFailure(ana.reply(to: ana.request(0xD0, body)), in: 0x14, code: 0x1201)
            XCTAssertEqual(e?.closes, false)
        }
        let e = expectFailure(ana.reply(to: ana.request(0xD0, begin(codec: 7))), in: 0x14, code: 0x0003)
        XCTAssertEqual(e?.closes, true, "an unknown codec: malformed")
    }

    func testC115AShareFrameWithoutAShareIsNoShareAndNotFatal() throws {
        try start(.open)
        let ana = try join("Ana")
        let frame: [UInt8] = [1, 0, 0, 0] + u32(0) + u64(0) + [0, 0, 0, 1, 0x65, 0x88]
        let e = expectFailure(ana.reply(to: ana.request(0xD2, frame)), in: 0x14, code: 0x1202)
        XCTAssertEqual(e?.closes, false)
        expectFailure(ana.reply(to: ana.request(0xD6, [3])), in: 0x14, code: 0x1202)
        XCTAssertEqual(ana.reply(to: ana.request(0x16))?.command, 0x15, "the connection stays open")
    }

    func testC116AModeratedRoomsShareWaitsAndTheModeratorApprovesIt() throws {
        try start(.moderated)
        let mod = try join("Chair", role: 2)
        let ana = try join("Ana")
        let ready = try XCTUnwrap(ana.reply(to: ana.request(0xD0, begin())))
        XCTAssertEqual(ready.command, 0xD1)
        XCTAssertEqual(Array(ready.body.prefix(2)), [2, 0xFF], "waiting, no pane")
        XCTAssertEqual(ready.body.count, 8)
        let s = try XCTUnwrap(mod.reply(to: mod.request(0x16))?.json)
        let shares = try XCTUnwrap(s["shares"] as? [[String: Any]])
        XCTAssertEqual(shares.first?["status"] as? String, "waiting")
        XCTAssertEqual(shares.first?["device"] as? Int, Int(ana.device))
        XCTAssertTrue(shares.first?["pane"] is NSNull)
        expectFailure(ana.reply(to: ana.request(0xD7, [ana.device, 1])), in: 0x14, code: 0x0203)
        XCTAssertEqual(mod.reply(to: mod.request(0xD7, [ana.device, 1]))?.command, 0x13, "approved")
        var live: RawFrame?
        try eventually("share-ready live, tag 0", timeout: 5, interval: 0) {
            guard let f = ana.next(timeout: 1) else { return false }
            if f.command == 0xD1 { live = f }
            return live != nil
        }
        XCTAssertEqual(live?.tag, 0)
        XCTAssertEqual(Array(live!.body.prefix(2)), [1, 0], "live in pane 0")
        let after = try XCTUnwrap(mod.reply(to: mod.request(0x16))?.json)
        XCTAssertEqual((after["layout"] as? [String: Any]).flatMap { ($0["panes"] as? [[String: Any]])?.first?["share"] as? Int }, Int(ana.device))
    }

    func testC117TheModeratorEndsAShareAndTheSharerIsToldWhy() throws {
        try start(.open)
        let mod = try join("Chair", role: 2)
        let ana = try join("Ana")
        XCTAssertEqual(ana.reply(to: ana.request(0xD0, begin()))?.command, 0xD1)
        XCTAssertEqual(ana.reply(to: ana.request(0xD6, [1]))?.command, 0x13, "pause: ok")
        XCTAssertEqual(mod.reply(to: mod.request(0xD7, [ana.device, 3]))?.command, 0x13)
        var ended: RawFrame?
        try eventually("share-ended", timeout: 5, interval: 0) {
            guard let f = ana.next(timeout: 1) else { return false }
            if f.command == 0xD8 { ended = f }
            return ended != nil
        }
        XCTAssertEqual(ended?.tag, 0)
        XCTAssertEqual(ended?.error?.code, 0x1206)
        XCTAssertEqual(ended?.error?.message, "The moderator ended your share.")
    }

    func testC118ShareAudioWithoutAShareIsNoShareAndABadOneIsMalformed() throws {
        try start(.open)
        let ana = try join("Ana")
        let audio: [UInt8] = [1, 2, 0, 0] + u32(0) + u64(0) + [0xFC, 0xFF, 0xFE]
        let e = expectFailure(ana.reply(to: ana.request(0xDA, audio)), in: 0x14, code: 0x1202)
        XCTAssertEqual(e?.closes, false)
        XCTAssertEqual(ana.reply(to: ana.request(0x16))?.command, 0x15, "the connection stays open")
        let three: [UInt8] = [1, 3, 0, 0] + u32(1) + u64(0) + [0xFC]
        let m = expectFailure(ana.reply(to: ana.request(0xDA, three)), in: 0x14, code: 0x0003)
        XCTAssertEqual(m?.closes, true, "3 channels: malformed")
    }

    /// A tiny all-intra H.264 stream from the ffmpeg CLI, cut at its access unit delimiters.
    func pictures(_ count: Int) throws -> [[UInt8]] {
        let dir = Fixtures.tempDir("c125")
        let path = dir + "/s.h264"
        let r = try Fixtures.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=red:s=320x240:r=10", "-frames:v", "\(count)", "-c:v", "libx264", "-g", "1",
                "-pix_fmt", "yuv420p", "-bsf:v", "h264_metadata=aud=insert", "-f", "h264", path,
            ])
        XCTAssertEqual(r.status, 0, r.err)
        let b = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var starts: [Int] = []
        for i in 0..<(b.count - 4) where b[i] == 0 && b[i + 1] == 0 && b[i + 2] == 0 && b[i + 3] == 1 && b[i + 4] & 0x1F == 9 { starts.append(i) }
        return zip(starts, starts.dropFirst() + [b.count]).map { Array(b[$0..<$1]) }
    }

    func testC119AViewerGetsThePictureOfTheShareOnTheWallOnly() throws {
        try start(.open)
        let ana = try join("Ana")
        let viewer = try join("Vera", role: 3)
        expectFailure(viewer.reply(to: viewer.request(0xD9, [ana.device, 0] + u16(320) + u16(0))), in: 0x14, code: 0x1208)
        XCTAssertEqual(ana.reply(to: ana.request(0xD0, begin(width: 320, height: 240, fps: 10, bitrate: 500_000)))?.command, 0xD1)
        for (i, p) in try pictures(5).enumerated() { ana.send(frame(0xD2, device: ana.device, tag: 0, [1, 0, 0, 0] + u32(UInt32(i)) + u64(UInt64(i) * 100_000) + p)) }
        var piece: RawFrame?
        try eventually("the share's picture for the viewer", timeout: 10, interval: 0.2) {
            let f = viewer.reply(to: viewer.request(0xD9, [ana.device, 0] + u16(320) + u16(0)))
            if f?.command == 0x51 { piece = f }
            return piece != nil
        }
        // screenshot-data: width, height, total, offset, then a JPEG (FF D8 FF) fitted in 320 wide.
        let body = try XCTUnwrap(piece?.body)
        XCTAssertEqual(be32(body, 0), 320)
        XCTAssertEqual(Array(body[16..<19]), [0xFF, 0xD8, 0xFF])
        // A presenter's own share is theirs to see; another presenter's is the moderator's (§29.2).
        let ben = try join("Ben")
        expectFailure(ben.reply(to: ben.request(0xD9, [ana.device, 0] + u16(320) + u16(0))), in: 0x14, code: 0x0203)
    }
}
