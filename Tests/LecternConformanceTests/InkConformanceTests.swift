import Foundation
import LecternTestSupport
import XCTest

/// §22 from outside: pointer and ink frames written byte by byte from docs/protocol.md.
final class InkConformanceTests: ConformanceTestCase {
    /// A moderator with a one-page deck on screen.
    func moderatorPresenting() throws -> RawPeer {
        try start(.open)
        let m = try join("Mod", role: 2)
        let pdf = try Fixtures.pdf([Fixtures.quadrantPage(width: 800, height: 600)], in: harness.dir)
        let (id, frames) = try upload(m, path: pdf)
        XCTAssertEqual(frames.last?.command, 0x3C, "upload-stored")
        let t = m.request(0x30, id + u32(1))
        XCTAssertEqual(m.reply(to: t)?.command, 0x31, "present-ok")
        return m
    }

    func testC52APointerHasNoReplyAndOnlyTheHolderOrAModeratorPoints() throws {
        let m = try moderatorPresenting()
        let point = m.request(0x34, [0, 0] + u16(16_384) + u16(32_768))
        let ask = m.request(0x16)
        while let f = m.next() {
            XCTAssertNotEqual(f.tag, point, "a reply to a pointer: \(f)")
            if f.tag == ask { XCTAssertEqual(f.command, 0x15); break }
        }
        let p = try join("Ana")
        p.request(0x34, [1, 0] + u16(0) + u16(0))
        let e = expectFailure(p.reply(), in: 0x14, code: 0x0809)
        XCTAssertEqual(e?.closes, false)
        p.request(0x34, [0, 0, 0])   // a short body
        expectFailure(p.reply(), in: 0x14, code: 0x0003)
    }

    func testC53AStrokeIsKeptAndFetchedAsSent() throws {
        let m = try moderatorPresenting()
        let points = u16(0) + u16(65_535) + u16(30_000) + u16(1)
        m.request(0x35, [1, 2, 0, 0] + u16(1) + Array(points[0..<4]))   // pen, thick, my colour, 1 point
        m.request(0x36, u16(1) + Array(points[4..<8]))
        let end = m.request(0x37, u16(0))
        let ok = try XCTUnwrap(m.reply(to: end))
        XCTAssertEqual(ok.command, 0x70, "stroke-ok: \(ok) \(String(describing: ok.error))")
        XCTAssertEqual(ok.body.count, 6)
        let id = be32(ok.body, 0)
        XCTAssertEqual(be16(ok.body, 4), 1, "strokes on the page")
        let fetch = m.request(0x75, [UInt8](repeating: 0, count: 32) + u32(0))
        let page = try XCTUnwrap(m.reply(to: fetch))
        XCTAssertEqual(page.command, 0x76)
        // u16 count, u32 id, u8 author, u8 tool, u8 width, r, g, b, u16 n, points
        XCTAssertEqual(page.body, u16(1) + u32(id) + [m.device, 1, 2, 213, 94, 0] + u16(2) + points)
        // Ink state (§22.6): every key, the page's count, the drawer's colour.
        let s = try XCTUnwrap(m.reply(to: m.request(0x16))?.json)
        let ink = try XCTUnwrap(s["ink"] as? [String: Any])
        XCTAssertEqual(Set(ink.keys), ["pages", "drawers", "allowed", "everyone", "strokes", "points", "box", "whiteboards"])
        XCTAssertEqual((ink["pages"] as? [[String: Any]])?.first?["strokes"] as? Int, 1)
        XCTAssertEqual((ink["drawers"] as? [[String: Any]])?.first?["color"] as? String, "#d55e00")
        // An undo by someone else who has no stroke there: nothingToUndo; a colour out of range: malformed.
        let p = try join("Ana")
        p.request(0x71)
        expectFailure(p.reply(), in: 0x14, code: 0x0808)
        p.request(0x35, [1, 1, 9, 0] + u16(0))
        expectFailure(p.reply(), in: 0x14, code: 0x0003)
    }
}
