import Foundation
import LecternModel
import LecternTestSupport
import XCTest

/// §19's rules C95–C97, what a wall of several panes keeps (§9.6, §9.7, §14.4): a pane's
/// driver keeps its pane for the grace period and is told once when it ran out; a restart
/// keeps the layout, every pane and its driver. Frames written byte by byte from
/// docs/protocol.md over a real TLS socket to a real service.
final class WallStateConformanceTests: ConformanceTestCase {
    func state(_ p: RawPeer) throws -> [String: Any] { try XCTUnwrap(p.reply(to: p.request(0x16))?.json) }
    func panes(_ s: [String: Any]) -> [[String: Any]] { (s["layout"] as? [String: Any])?["panes"] as? [[String: Any]] ?? [] }
    func screen(_ s: [String: Any]) -> [String: Any]? { s["screen"] as? [String: Any] }

    /// A moderated room: the chair, and Ben driving pane 1 of a split with page 2 of his
    /// 4-page deck on it.
    func benInPane1(grace: Double) throws -> (mod: RawPeer, ben: RawPeer) {
        try start(.moderated) { $0.gracePeriod = grace }
        let mod = try join("Chair", role: 2)
        let ben = try join("Ben")
        let (deck, _) = try upload(ben, path: try Fixtures.numberedDeck(count: 4, in: harness.dir, name: "ben.pdf"))
        XCTAssertEqual(mod.reply(to: mod.request(0x90, [1]))?.command, 0x13, "split")
        XCTAssertEqual(mod.reply(to: mod.request(0x91, [1, 3, ben.device]))?.command, 0x13, "pane 1 to Ben")
        XCTAssertEqual(ben.reply(to: ben.request(0x30, deck + u32(2)))?.command, 0x31, "Ben's present-ok")
        return (mod, ben)
    }

    /// Registers again on a new connection with `token`; returns the peer and register-ok's flags.
    func back(_ name: String, token: [UInt8]) throws -> (RawPeer, flags: UInt8) {
        let p = try connect()
        p.request(0x01, registerBody(p, name: name, token: token))
        let ok = try XCTUnwrap(p.next())
        XCTAssertEqual(ok.command, 0x02, "register-ok: \(ok) \(String(describing: ok.error))")
        p.device = ok.body[0]
        p.token = Array(ok.body[3..<19])
        return (p, ok.body[2])
    }

    func testC95APaneDriverBackInItsGracePeriodDrivesItsPaneAgain() throws {
        let (mod, ben) = try benInPane1(grace: 60)
        let id = ben.device
        ben.socket.close()
        try eventually("Ben is away, still pane 1's driver", timeout: 15) {
            let s = try self.state(mod)
            let p = self.panes(s)[1]
            let devices = s["devices"] as? [[String: Any]] ?? []
            return p["driver"] as? Int == Int(id) && (p["graceRemainingMs"] as? Int ?? 0) > 0
                && devices.contains { $0["id"] as? Int == Int(id) && $0["connected"] as? Bool == false }
        }
        XCTAssertEqual(screen(panes(try state(mod))[1])?["page"] as? Int, 2, "the pane goes on showing his page")
        let (again, flags) = try back("Ben", token: ben.token)
        XCTAssertEqual(flags & 1, 1, "resumed")
        XCTAssertEqual(again.device, id, "his id back")
        XCTAssertFalse(again.drain().contains { $0.command == 0x14 }, "no notice")
        XCTAssertEqual(again.reply(to: again.request(0x0C, [0x01, 0, 0, 0] + u32(0)))?.command, 0x0D, "his next")
        let s = try state(again)
        XCTAssertEqual(screen(s)?["page"] as? Int, 3, "his screen is his pane")
        XCTAssertEqual(screen(panes(s)[1])?["page"] as? Int, 3)
        XCTAssertTrue(panes(s)[1]["graceRemainingMs"] is NSNull, "back: not away")
    }

    func testC96APaneDriverBackAfterItsGracePeriodFindsThePaneEmptiedAndIsToldOnce() throws {
        let (mod, ben) = try benInPane1(grace: 1)
        ben.socket.close()
        var emptied = false
        while let s = mod.statePush(timeout: 10) {
            let p = panes(s)
            if p.count == 2, p[1]["driver"] is NSNull, screen(p[1])?["content"] is NSNull { emptied = true; break }
        }
        XCTAssertTrue(emptied, "pane 1 emptied and driven by nobody once the grace period ran out")
        let (again, flags) = try back("Ben", token: ben.token)
        XCTAssertEqual(flags, 0, "not resumed")
        let first = try XCTUnwrap(again.next())
        XCTAssertEqual(first.command, 0x15, "the state first")
        let told = expectFailure(again.next(), in: 0x14, code: 0x1102)
        XCTAssertEqual(told?.closes, false, "the connection stays open")
        XCTAssertEqual(told?.detail, 1000, "the grace period in ms")
        XCTAssertEqual(told?.message, "You were away longer than 1 s; your pane of the wall (pane 1) was cleared.")
        XCTAssertTrue(again.drain().allSatisfy { $0.command != 0x14 }, "nothing more")
        again.request(0x04)
        let (twice, _) = try back("Ben", token: ben.token)
        XCTAssertTrue(twice.drain().allSatisfy { $0.command != 0x14 }, "told once")
    }

    func testC97ARestartKeepsTheLayoutEveryPaneAndItsDriver() throws {
        let (mod, ben) = try benInPane1(grace: 60)
        let before = panes(try state(mod))
        XCTAssertEqual(before.count, 2)
        try harness.restart()
        let chair = try join("Chair", role: 2)
        let s = try state(chair)
        XCTAssertEqual((s["layout"] as? [String: Any])?["kind"] as? String, "split")
        let after = panes(s)
        XCTAssertEqual(after.map { $0["main"] as? Bool }, [true, false])
        XCTAssertEqual(after[1]["driver"] as? Int, Int(ben.device), "Ben still drives pane 1, away")
        XCTAssertGreaterThan(after[1]["graceRemainingMs"] as? Int ?? 0, 0)
        XCTAssertEqual(screen(after[1])?["page"] as? Int, 2)
        XCTAssertEqual(screen(after[1])?["pageCount"] as? Int, 4)
        let (again, flags) = try back("Ben", token: ben.token)
        XCTAssertEqual(flags & 1, 1, "resumed after the restart")
        XCTAssertEqual(again.reply(to: again.request(0x0C, [0x01, 0, 0, 0] + u32(0)))?.command, 0x0D, "his next, on his own deck")
        XCTAssertEqual(screen(panes(try state(chair))[1])?["page"] as? Int, 3)
        _ = mod
    }
}
