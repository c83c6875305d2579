import Foundation
import LecternCore
import LecternTestSupport
import XCTest

/// §19's rules C120–C123, live sharing (§29, protocol 1.2), from outside: frames written
/// byte by byte from docs/protocol.md over a real TLS socket to a real service.
final class ShareConformanceTests: ConformanceTestCase {
    /// share-begin's body: codec, source, placement, reserved, width, height, frame rate, bitrate.
    func begin(codec: UInt8 = 1, placement: UInt8 = 0, width: UInt16 = 1280, height: UInt16 = 720, fps: UInt16 = 30, bitrate: UInt32 = 4_000_000) -> [UInt8] {
        [codec, 1, placement, 0] + u16(width) + u16(height) + u16(fps) + u32(bitrate)
    }

    func testC120ABeginOutsideTheLimitsIsRefusedAndTheConnectionStays() throws {
        try start(.open)
        let ana = try join("Ana")
        for body in [begin(width: 16384, height: 16384), begin(width: 1920, height: 1201), begin(fps: 61), begin(bitrate: 20_000_001)] {
            let e = expectFailure(ana.reply(to: ana.request(0xD0, body)), in: 0x14, code: 0x1201)
            XCTAssertEqual(e?.closes, false)
        }
        let e = expectFailure(ana.reply(to: ana.request(0xD0, begin(codec: 7))), in: 0x14, code: 0x0003)
        XCTAssertEqual(e?.closes, true, "an unknown codec: malformed")
    }

    func testC121AShareFrameWithoutAShareIsNoShareAndNotFatal() throws {
        try start(.open)
        let ana = try join("Ana")
        let frame: [UInt8] = [1, 0, 0, 0] + u32(0) + u64(0) + [0, 0, 0, 1, 0x65, 0x88]
        let e = expectFailure(ana.reply(to: ana.request(0xD2, frame)), in: 0x14, code: 0x1202)
        XCTAssertEqual(e?.closes, false)
        expectFailure(ana.reply(to: ana.request(0xD6, [3])), in: 0x14, code: 0x1202)
        XCTAssertEqual(ana.reply(to: ana.request(0x16))?.command, 0x15, "the connection stays open")
    }

    func testC122AModeratedRoomsShareWaitsAndTheModeratorApprovesIt() throws {
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

    func testC123TheModeratorEndsAShareAndTheSharerIsToldWhy() throws {
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
}
