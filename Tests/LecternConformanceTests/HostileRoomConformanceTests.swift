import Foundation
import LecternTestSupport
import XCTest

/// §19's rules from the hostile-room work (issue 25), from outside: what can grow is paged,
/// pushes are paced, the code on the wall stays, notes are their author's, wide pages are
/// shown whole. Frames written byte by byte from docs/protocol.md.
final class HostileRoomConformanceTests: ConformanceTestCase {
    /// A presenter holding the floor of an open room with `pdf` on screen.
    func presenting(_ name: String = "Ana", pdf: String? = nil) throws -> (RawPeer, id: [UInt8]) {
        if harness == nil { try start(.open) }
        let p = try join(name)
        p.request(0x06)
        XCTAssertEqual(p.reply()?.command, 0x07, "floor-ack")
        let file = try pdf ?? Fixtures.numberedDeck(count: 3, in: harness.dir)
        let (id, frames) = try upload(p, path: file)
        XCTAssertEqual(frames.last?.command, 0x3C, "upload-stored")
        XCTAssertEqual(p.reply(to: p.request(0x30, id + u32(1)))?.command, 0x31, "present-ok")
        return (p, id)
    }

    func testC64WhatGrowsIsFetchedAPageAtATime() throws {
        let (p, _) = try presenting()
        let poll = Array(#"{"question":"Say?","kind":"text","answers":[],"correct":null}"#.utf8)
        XCTAssertEqual(p.reply(to: p.request(0x80, poll))?.command, 0x13)
        let viewers = try (0..<3).map { try join("Guest \($0)", role: 3) }
        for (i, v) in viewers.enumerated() {
            let text = Array("answer \(i)".utf8)
            XCTAssertEqual(v.reply(to: v.request(0x81, u32(0) + [0xFF] + u16(UInt16(text.count)) + text))?.command, 0x13)
        }
        // what 2 (texts), poll 0 (current), offset 1, count 1
        let page = try XCTUnwrap(p.reply(to: p.request(0x8B, [2] + u32(0) + u32(1) + u16(1))))
        XCTAssertEqual(page.command, 0x8C, "audience-page: \(String(describing: page.error))")
        let json = try XCTUnwrap((try? JSONSerialization.jsonObject(with: Data(page.body))) as? [String: Any], "audience-page is a JSON object")
        XCTAssertEqual(json["total"] as? Int, 3)
        XCTAssertEqual(json["offset"] as? Int, 1)
        XCTAssertEqual(json["texts"] as? [String], ["answer 1"])
        let s = try XCTUnwrap(p.reply(to: p.request(0x16))?.json)
        let statePoll = try XCTUnwrap((s["audience"] as? [String: Any])?["poll"] as? [String: Any])
        XCTAssertEqual(statePoll["textCount"] as? Int, 3)
        XCTAssertEqual(statePoll["textsFrom"] as? Int, 0)
        // Open-text answers are the presenters' and the moderator's.
        let refused = expectFailure(viewers[0].reply(to: viewers[0].request(0x8B, [2] + u32(0) + u32(0) + u16(10))), in: 0x14, code: 0x0901)
        XCTAssertEqual(refused?.closes, false)
        // A `what` other than 1 or 2 is malformed.
        let bad = expectFailure(p.reply(to: p.request(0x8B, [3] + u32(0) + u32(0) + u16(10))), in: 0x14, code: 0x0003)
        XCTAssertEqual(bad?.closes, true)
    }

    func testC65PushesArePacedPerClientAndTheNewestWins() throws {
        let (p, _) = try presenting()
        let watcher = try join("Ben")
        _ = watcher.drain()
        let t0 = Date()
        var last: UInt32 = 0
        for i in 0..<20 {
            let y = UInt16(1000 + i * 3000)
            p.request(0x35, [1, 2, 0, 0] + u16(1) + u16(100) + u16(y))
            let ok = try XCTUnwrap(p.reply(to: p.request(0x37, u16(0))), "stroke \(i)")
            XCTAssertEqual(ok.command, 0x70)
            last = be32(ok.body, 0)
        }
        let elapsed = Date().timeIntervalSince(t0)
        // What the watcher got while the strokes were drawn, and the push the window owed.
        var pushes = 0
        var newest: [String: Any]?
        let ask = watcher.request(0x11, u32(1))
        while let f = watcher.next(), !(f.command == 0x12 && f.tag == ask) {
            if f.command == 0x15 { pushes += 1; newest = f.json }
        }
        XCTAssertLessThanOrEqual(pushes, Int(elapsed / 0.1) + 2, "at most one push per 100 ms (\(pushes) in \(elapsed) s)")
        try eventually("the newest state, with all 20 strokes, reaches the watcher", timeout: 5, interval: 0) {
            if let f = watcher.next(timeout: 0.5), f.command == 0x15 { newest = f.json }
            return (newest?["ink"] as? [String: Any])?["strokes"] as? Int == 20
        }
        XCTAssertGreaterThan(last, 0)
    }

    func testC66ViewersComingAndGoingDontChangeTheCodeOnTheWall() throws {
        try start(.open) {
            $0.screenCode = true
            $0.audience = .open
        }
        let first = try connect()
        let salt = first.hello.presenter.salt
        for i in 0..<6 {
            let v = try join("Guest \(i)", role: 3)
            XCTAssertEqual(v.reply(to: v.request(0x04))?.command, 0x05, "unregister-ok")
        }
        let later = try connect()
        XCTAssertEqual(later.hello.presenter.salt, salt, "the code (and its salt) stayed while viewers came and went")
    }

    func testC67TypedNotesAreTheirAuthors() throws {
        try start(.open)
        let deck = try Fixtures.numberedDeck(count: 2, in: harness.dir)
        let ana = try join("Ana")
        let id = try upload(ana, path: deck).id
        let note = Array("Ana: the budget is 42k".utf8)
        XCTAssertEqual(ana.reply(to: ana.request(0x62, id + u32(1) + note))?.command, 0x13, "notes-edit")
        let (eve, same) = try presenting("Eve", pdf: deck)
        XCTAssertEqual(same, id, "the same stored file")
        let notes = try XCTUnwrap(eve.reply(to: eve.request(0x60, id + u32(1))))
        XCTAssertEqual(notes.command, 0x61, "notes: \(String(describing: notes.error))")
        XCTAssertFalse(String(decoding: notes.body, as: UTF8.self).contains("42k"), "Eve read Ana's typed note")
    }

    func testC68AWidePageIsShownWholeWithoutBeamersMark() throws {
        let banner = try Fixtures.pdf([Fixtures.quadrantPage(width: 1600, height: 400)], in: Fixtures.tempDir("banner"))
        let (p, _) = try presenting(pdf: banner)
        let s = try XCTUnwrap(p.reply(to: p.request(0x16))?.json)
        XCTAssertEqual((s["console"] as? [String: Any])?["notesLayout"] as? String, "none", "a 4:1 banner is not a beamer deck")
    }

    func testC70AFileThatIsCostlyToOpenIsRefusedAtUploadFinish() throws {
        try start(.open)
        let p = try join("Ana")
        let bomb = try XrefClaimDeck.write(in: harness.dir)
        let (_, frames) = try upload(p, path: bomb)
        let e = expectFailure(frames.last, in: 0x14, code: 0x0307)
        XCTAssertEqual(e?.closes, false)
        XCTAssertTrue(e?.message.contains("128 MB") == true, "the message names the limit: \(e?.message ?? "")")
        // The room goes on: a good deck is stored and shown.
        let good = try upload(p, path: try Fixtures.numberedDeck(count: 2, in: harness.dir))
        XCTAssertEqual(good.frames.last?.command, 0x3C, "upload-stored")
    }
}
