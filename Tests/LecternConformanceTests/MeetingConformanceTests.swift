import Foundation
import LecternTestSupport
import XCTest

/// §19's rules for the meeting (§27), from outside: frames written byte by byte from
/// docs/protocol.md.
final class MeetingConformanceTests: ConformanceTestCase {
    func testC79TheStateCarriesTheMeetingIdANewOneAfterTheEnd() throws {
        try start(.moderated)
        let p = try join("Ana")
        let s = try XCTUnwrap(p.reply(to: p.request(0x16))?.json)
        let id = try XCTUnwrap(s["meeting"] as? String, "the state's meeting is a string")
        XCTAssertEqual(id.count, 32)
        let mod = try join("Mo", role: 2)
        // audience-set 5: ok to the moderator, then the meeting ends.
        XCTAssertEqual(mod.reply(to: mod.request(0x87, [5]))?.command, 0x13)
        let next = try join("Ben")
        let s2 = try XCTUnwrap(next.reply(to: next.request(0x16))?.json)
        XCTAssertNotEqual(s2["meeting"] as? String, id)
    }

    func testC80AtTheEndEveryPersonIsToldMeetingEndedAndClosed() throws {
        try start(.moderated)
        let p = try join("Ana")
        let v = try join("", role: 3)
        let mod = try join("Mo", role: 2)
        XCTAssertEqual(mod.reply(to: mod.request(0x87, [5]))?.command, 0x13, "ok first")
        for (peer, who) in [(p, "presenter"), (v, "viewer"), (mod, "moderator")] {
            var e: (code: UInt16, closes: Bool, detail: UInt64, message: String)?
            while let f = peer.next(timeout: 5) { if f.command == 0x14 { e = f.error; break } }
            XCTAssertEqual(e?.code, 0x1001, who)
            XCTAssertEqual(e?.closes, true, who)
            XCTAssertTrue(peer.isClosed(), "\(who) closed")
        }
    }

    func testC81AWallViewIsAnsweredOkAndStaysThroughTheEnd() throws {
        try start(.moderated)
        let wall = try join("Wall view", role: 2)
        XCTAssertEqual(wall.reply(to: wall.request(0x98))?.command, 0x13, "wall-view: ok")
        let mod = try join("Mo", role: 2)
        XCTAssertEqual(mod.reply(to: mod.request(0x87, [5]))?.command, 0x13)
        let s = try XCTUnwrap(wall.reply(to: wall.request(0x16))?.json, "the wall view is still registered")
        XCTAssertEqual((s["devices"] as? [[String: Any]])?.compactMap { $0["name"] as? String }, ["Wall view"])
        // A viewer may not declare itself a wall.
        let v = try join("", role: 3)
        expectFailure(v.reply(to: v.request(0x98)), in: 0x14, code: 0x0901)
    }

    func testC82OnlyTheModeratorEndsTheMeetingInARoomWithOne() throws {
        try start(.open)
        let p = try join("Ana")
        XCTAssertEqual(p.reply(to: p.request(0x06))?.command, 0x07, "floor-ack")
        expectFailure(p.reply(to: p.request(0x87, [5])), in: 0x14, code: 0x0203)
    }
}
