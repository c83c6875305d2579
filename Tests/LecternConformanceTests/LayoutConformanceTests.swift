import Foundation
import LecternModel
import LecternTestSupport
import XCTest

/// §19's rules C71–C78 and C91–C93, the wall's layout and clips in its panes (§9.7,
/// protocols 1.1 and 1.2), from outside: frames
/// written byte by byte from docs/protocol.md over a real TLS socket to a real service.
final class LayoutConformanceTests: ConformanceTestCase {
    /// A room with the moderator, Ana holding the floor with a 3-page deck on the wall, and
    /// Ben, who uploaded a 4-page deck. Returns the peers and Ben's deck id.
    func room(_ floor: FloorMode) throws -> (mod: RawPeer, ana: RawPeer, ben: RawPeer, benDeck: [UInt8]) {
        try start(floor)
        let mod = try join("Chair", role: 2)
        let ana = try join("Ana")
        let ben = try join("Ben")
        ana.request(0x06)
        XCTAssertEqual(ana.reply()?.command, 0x07, "floor-ack")
        if floor == .moderated {
            XCTAssertEqual(mod.reply(to: mod.request(0x0B, [1, ana.device]))?.command, 0x13, "grant")
        }
        let (anaDeck, _) = try upload(ana, path: try Fixtures.numberedDeck(count: 3, in: harness.dir, name: "ana.pdf"))
        XCTAssertEqual(ana.reply(to: ana.request(0x30, anaDeck + u32(1)))?.command, 0x31, "present-ok")
        let (benDeck, frames) = try upload(ben, path: try Fixtures.numberedDeck(count: 4, in: harness.dir, name: "ben.pdf"))
        XCTAssertEqual(frames.last?.command, 0x3C, "upload-stored")
        return (mod, ana, ben, benDeck)
    }

    func state(_ p: RawPeer) throws -> [String: Any] { try XCTUnwrap(p.reply(to: p.request(0x16))?.json) }
    func layout(_ s: [String: Any]) -> [String: Any]? { s["layout"] as? [String: Any] }
    func panes(_ s: [String: Any]) -> [[String: Any]] { layout(s)?["panes"] as? [[String: Any]] ?? [] }
    func screen(_ s: [String: Any]) -> [String: Any]? { s["screen"] as? [String: Any] }

    func testC71BadLayoutAndPaneBodiesAreMalformed() throws {
        try start(.moderated)
        for (i, body) in ([[5], [0, 0]] as [[UInt8]]).enumerated() {   // layout 5; a trailing byte
            let m = try join("Chair \(i)", role: 2)
            let e = expectFailure(m.reply(to: m.request(0x90, body)), in: 0x14, code: 0x0003)
            XCTAssertEqual(e?.closes, true)
            XCTAssertEqual(e?.detail, 0x90)
        }
        for (i, body) in ([[4, 2], [0, 6], [0, 5, 4], [0, 3]] as [[UInt8]]).enumerated() {   // pane 4; action 6; swap with 4; assign without device
            let m = try join("Chair \(i + 2)", role: 2)
            let e = expectFailure(m.reply(to: m.request(0x91, body)), in: 0x14, code: 0x0003)
            XCTAssertEqual(e?.closes, true, "\(body)")
            XCTAssertEqual(e?.detail, 0x91)
        }
    }

    func testC72OnlyTheModeratorArrangesAndPanesAreChecked() throws {
        let (mod, ana, _, _) = try room(.moderated)
        expectFailure(ana.reply(to: ana.request(0x90, [1])), in: 0x14, code: 0x0203)
        expectFailure(ana.reply(to: ana.request(0x91, [0, 2])), in: 0x14, code: 0x0203)
        let e = expectFailure(mod.reply(to: mod.request(0x91, [1, 2])), in: 0x14, code: 0x0F01)
        XCTAssertEqual(e?.detail, 1, "the layout's pane count")
        XCTAssertEqual(e?.closes, false)
        XCTAssertEqual(mod.reply(to: mod.request(0x16))?.command, 0x15, "the connection stays open")
    }

    func testC73TheStateCarriesTheLayoutAndTheMinorVersion() throws {
        let (mod, ana, _, _) = try room(.moderated)
        let before = try state(ana)
        XCTAssertGreaterThanOrEqual(before["protocolMinor"] as? Int ?? 0, 1, "1.1 or later (1.2 adds live sharing, §29)")
        XCTAssertEqual(layout(before)?["kind"] as? String, "full")
        XCTAssertEqual(panes(before).count, 1)
        _ = mod.drain()
        let t = mod.request(0x90, [1])
        let reply = try XCTUnwrap(mod.next())
        XCTAssertEqual(reply.command, 0x13, "ok, before the push")
        XCTAssertEqual(reply.tag, t)
        let pushed = try XCTUnwrap(mod.statePush())
        XCTAssertEqual(layout(pushed)?["kind"] as? String, "split")
        let ps = panes(pushed)
        XCTAssertEqual(ps.map { $0["index"] as? Int }, [0, 1])
        XCTAssertEqual(ps.map { $0["main"] as? Bool }, [true, false])
        XCTAssertEqual(ps[0]["driver"] as? Int, Int(ana.device), "the main pane's driver is the floor's")
        XCTAssertTrue(ps[1].keys.contains("driver") && ps[1]["driver"] is NSNull, "nobody drives pane 1: null")
        let rect = try XCTUnwrap(ps[1]["rect"] as? [String: Double])
        XCTAssertEqual(rect, ["x": 0.5, "y": 0, "width": 0.5, "height": 1])
        XCTAssertEqual((screen(ps[0])?["page"] as? Int), 1)
    }

    func testC74EachDeviceDrivesItsOwnPaneAndItsScreenIsThatPane() throws {
        let (mod, ana, ben, benDeck) = try room(.moderated)
        XCTAssertEqual(mod.reply(to: mod.request(0x90, [1]))?.command, 0x13)
        XCTAssertEqual(mod.reply(to: mod.request(0x91, [1, 3, ben.device]))?.command, 0x13, "assign pane 1 to Ben")
        XCTAssertEqual(ben.reply(to: ben.request(0x30, benDeck + u32(2)))?.command, 0x31, "Ben's present-ok")
        XCTAssertEqual(ben.reply(to: ben.request(0x0C, [0x01, 0, 0, 0] + u32(0)))?.command, 0x0D, "Ben's next")
        XCTAssertEqual(ana.reply(to: ana.request(0x0C, [0x01, 0, 0, 0] + u32(0)))?.command, 0x0D, "Ana's next")
        let b = try state(ben)
        let a = try state(ana)
        XCTAssertEqual(screen(b)?["page"] as? Int, 3, "Ben's screen: his pane")
        XCTAssertEqual(screen(b)?["pageCount"] as? Int, 4)
        XCTAssertEqual(screen(a)?["page"] as? Int, 2, "Ana's screen: the main pane")
        XCTAssertEqual(screen(a)?["pageCount"] as? Int, 3)
        XCTAssertEqual(panes(a).map { $0["driver"] as? Int }, [Int(ana.device), Int(ben.device)])
        XCTAssertEqual(panes(a).map { screen($0)?["page"] as? Int }, [2, 3])
    }

    func testC75APaneHandedToAnotherDeviceIsEmptied() throws {
        let (mod, _, ben, benDeck) = try room(.moderated)
        let cid = try join("Cid")
        XCTAssertEqual(mod.reply(to: mod.request(0x90, [1]))?.command, 0x13)
        XCTAssertEqual(mod.reply(to: mod.request(0x91, [1, 3, ben.device]))?.command, 0x13)
        XCTAssertEqual(ben.reply(to: ben.request(0x30, benDeck + u32(2)))?.command, 0x31)
        XCTAssertEqual(mod.reply(to: mod.request(0x91, [1, 3, cid.device]))?.command, 0x13, "pane 1 to Cid")
        try eventually("pane 1 is empty and Cid's", timeout: 10) {
            let s = try self.state(cid)
            return (self.screen(s)?["content"] is NSNull) && (self.panes(s)[1]["driver"] as? Int) == Int(cid.device)
                && (self.screen(self.panes(s)[1])?["content"] is NSNull)
        }
        expectFailure(ben.reply(to: ben.request(0x0C, [0x01, 0, 0, 0] + u32(0))), in: 0x0E, code: 0x0202)   // floorTaken: Ben drives nothing now
    }

    func testC76AddingToTheWallInAnOpenRoomAndNotInAModeratedOne() throws {
        let (_, ana, ben, benDeck) = try room(.open)
        let added = try XCTUnwrap(ben.reply(to: ben.request(0x92, benDeck + u32(4))))
        XCTAssertEqual(added.command, 0x31, "present-ok: \(String(describing: added.error))")
        let s = try state(ana)
        XCTAssertEqual(layout(s)?["kind"] as? String, "split")
        XCTAssertEqual(panes(s).map { $0["driver"] as? Int }, [Int(ana.device), Int(ben.device)])
        XCTAssertEqual(screen(panes(s)[1])?["page"] as? Int, 4)
        XCTAssertEqual((s["floor"] as? [String: Any])?["holder"] as? Int, Int(ana.device), "Ana keeps the floor")
        harness = nil   // a second room, moderated
        let (_, _, ben2, deck2) = try room(.moderated)
        expectFailure(ben2.reply(to: ben2.request(0x92, deck2 + u32(1))), in: 0x14, code: 0x0F03)
    }

    /// A clip Ben uploads (red, 3 s, 4:3), for the pane-clip rules.
    func clip(_ p: RawPeer, color: String = "red", name: String = "clip.mp4") throws -> [UInt8] {
        try upload(p, path: try Fixtures.clip(in: harness.dir, color: color, seconds: 3, name: name)).id
    }

    func testC77APaneDriverPlaysAClipInTheirPane() throws {
        let (mod, ana, ben, _) = try room(.moderated)
        XCTAssertEqual(mod.reply(to: mod.request(0x90, [3]))?.command, 0x13, "quad")
        XCTAssertEqual(mod.reply(to: mod.request(0x91, [3, 3, ben.device]))?.command, 0x13)
        let clip = try clip(ben)
        let played = try XCTUnwrap(ben.reply(to: ben.request(0x20, clip + [1])))
        XCTAssertEqual(played.command, 0x21, "clip-play-ok: \(String(describing: played.error))")
        try eventually("pane 3 plays Ben's clip", timeout: 10) {
            let s = try self.state(ben)
            return (self.screen(self.panes(s)[3])?["clip"] as? [String: Any])?["state"] as? String == "playing"
                && (self.screen(s)?["clip"] as? [String: Any])?["state"] as? String == "playing"
        }
        XCTAssertTrue(screen(panes(try state(ana))[0])?["clip"] is NSNull, "the main pane is untouched")
        XCTAssertEqual(ben.reply(to: ben.request(0x22))?.command, 0x23, "clip-pause-ok")
    }

    func testC91TheModeratorPlaysAClipInAPane() throws {
        let (mod, ana, _, benDeck) = try room(.moderated)
        XCTAssertEqual(mod.reply(to: mod.request(0x90, [1]))?.command, 0x13, "split")
        let clip = try clip(mod)
        XCTAssertEqual(try state(mod)["protocolMinor"] as? Int, 2)
        expectFailure(ana.reply(to: ana.request(0x93, [1] + clip + [0])), in: 0x14, code: 0x0203)   // moderatorOnly
        let far = expectFailure(mod.reply(to: mod.request(0x93, [2] + clip + [0])), in: 0x14, code: 0x0F01)
        XCTAssertEqual(far?.closes, false)
        expectFailure(mod.reply(to: mod.request(0x93, [1] + benDeck + [0])), in: 0x14, code: 0x0306)   // wrongKind
        let played = try XCTUnwrap(mod.reply(to: mod.request(0x93, [1] + clip + [1])))
        XCTAssertEqual(played.command, 0x21, "clip-play-ok: \(String(describing: played.error))")
        try eventually("pane 1 plays the clip, looping", timeout: 10) {
            let c = self.screen(self.panes(try self.state(mod))[1])?["clip"] as? [String: Any]
            return c?["state"] as? String == "playing" && c?["loop"] as? Bool == true
        }
        for (i, body) in ([[4] + clip + [0], [1] + clip + [2], [1] + clip] as [[UInt8]]).enumerated() {   // pane 4; loop 2; short
            let m = try join("Chair \(i + 2)", role: 2)
            let e = expectFailure(m.reply(to: m.request(0x93, body)), in: 0x14, code: 0x0003)
            XCTAssertEqual(e?.closes, true, "\(body.count) bytes")
            XCTAssertEqual(e?.detail, 0x93)
        }
    }

    func testC92TheLatestPlayOrResumeHasTheSound() throws {
        let (mod, ana, ben, _) = try room(.moderated)
        XCTAssertEqual(mod.reply(to: mod.request(0x90, [1]))?.command, 0x13, "split")
        XCTAssertEqual(mod.reply(to: mod.request(0x91, [1, 3, ben.device]))?.command, 0x13)
        func soundPane() throws -> Int? { self.layout(try self.state(ana))?["soundPane"] as? Int }
        XCTAssertTrue(layout(try state(ana))?["soundPane"] is NSNull, "no clip: null")
        let benClip = try clip(ben, color: "blue", name: "ben.mp4")
        XCTAssertEqual(ben.reply(to: ben.request(0x20, benClip + [1]))?.command, 0x21)
        try eventually("Ben's pane has the sound", timeout: 10) { try soundPane() == 1 }
        let anaClip = try clip(ana, name: "ana.mp4")
        XCTAssertEqual(ana.reply(to: ana.request(0x20, anaClip + [1]))?.command, 0x21)
        try eventually("Ana's pane has it: her play came last", timeout: 10) { try soundPane() == 0 }
        XCTAssertEqual(ana.reply(to: ana.request(0x22))?.command, 0x23, "pause")
        XCTAssertEqual(try soundPane(), 0, "a pause doesn't move it")
        XCTAssertEqual(ben.reply(to: ben.request(0x28))?.command, 0x29, "Ben's resume of his playing clip")
        try eventually("Ben's resume takes it", timeout: 10) { try soundPane() == 1 }
        XCTAssertEqual(ben.reply(to: ben.request(0x24))?.command, 0x25, "stop")
        try eventually("Ben's clip stopped: Ana's pane has it", timeout: 10) { try soundPane() == 0 }
        XCTAssertEqual(ana.reply(to: ana.request(0x24))?.command, 0x25, "stop")
        try eventually("no clip: null", timeout: 10) { self.layout(try self.state(ana))?["soundPane"] is NSNull }
    }

    func testC93APaneHandedOverStopsItsClipAtOnce() throws {
        let (mod, _, ben, _) = try room(.moderated)
        let cid = try join("Cid")
        XCTAssertEqual(mod.reply(to: mod.request(0x90, [1]))?.command, 0x13, "split")
        XCTAssertEqual(mod.reply(to: mod.request(0x91, [1, 3, ben.device]))?.command, 0x13)
        XCTAssertEqual(ben.reply(to: ben.request(0x20, try clip(ben) + [1]))?.command, 0x21)
        _ = cid.drain()
        XCTAssertEqual(mod.reply(to: mod.request(0x91, [1, 3, cid.device]))?.command, 0x13, "pane 1 to Cid")
        // The push the assign causes (the first with Cid driving pane 1) has no trace of Ben's clip.
        var pushed: [String: Any]?
        try eventually("Cid's push with pane 1 his", timeout: 10) {
            guard let s = cid.statePush(timeout: 5) else { return false }
            guard (self.panes(s)[1]["driver"] as? Int) == Int(cid.device) else { return false }
            pushed = s
            return true
        }
        let s = try XCTUnwrap(pushed)
        XCTAssertTrue(screen(panes(s)[1])?["clip"] is NSNull)
        XCTAssertTrue(screen(panes(s)[1])?["content"] is NSNull)
        XCTAssertTrue(screen(s)?["clip"] is NSNull, "Cid's screen is his pane")
        XCTAssertTrue(layout(s)?["soundPane"] is NSNull)
        expectFailure(cid.reply(to: cid.request(0x22)), in: 0x14, code: 0x0502)   // noClip
    }
}
