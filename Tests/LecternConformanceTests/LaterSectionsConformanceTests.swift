import Foundation
import LecternModel
import LecternTestSupport
import XCTest

/// §19's rules for sections 20–26 (the console, transitions, sound, the audience, TLS, the
/// record), from outside: frames written byte by byte from docs/protocol.md.
final class LaterSectionsConformanceTests: ConformanceTestCase {
    /// A presenter holding the floor of an open room with a one-page deck on screen.
    func presenting(_ name: String = "Ana") throws -> (RawPeer, id: [UInt8]) {
        if harness == nil { try start(.open) }
        let p = try join(name)
        p.request(0x06)
        XCTAssertEqual(p.reply()?.command, 0x07, "floor-ack")
        let pdf = try Fixtures.pdf([Fixtures.quadrantPage(width: 800, height: 600)], in: harness.dir)
        let (id, frames) = try upload(p, path: pdf)
        XCTAssertEqual(frames.last?.command, 0x3C, "upload-stored")
        XCTAssertEqual(p.reply(to: p.request(0x30, id + u32(1)))?.command, 0x31, "present-ok")
        return (p, id)
    }

    func testC57EveryFrameToAViewerCarriesDeviceByteFF() throws {
        let (p, _) = try presenting()
        let v = try connect()
        let t = v.request(0x01, registerBody(v, name: "Guest", role: 3))
        let ok = try XCTUnwrap(v.next())
        XCTAssertEqual(ok.command, 0x02, "register-ok: \(String(describing: ok.error))")
        XCTAssertEqual(ok.tag, t)
        XCTAssertEqual(ok.device, 0xFF, "register-ok to a viewer")
        XCTAssertEqual(ok.body[0], 0xFF, "a viewer has no id")
        XCTAssertEqual(ok.body[1], 3, "role viewer")
        var frames = [ok]
        // Its first push, a push caused by someone else, the pointer, and direct replies.
        p.request(0x0C, [0xF0, 0, 0, 0] + u32(1))   // blank white: a push to everyone
        _ = p.reply()
        p.request(0x0C, [0xF1, 0, 0, 0] + u32(0))   // unblank
        _ = p.reply()
        p.request(0x34, [0, 0] + u16(100) + u16(200))   // the pointer: viewer-pointer to viewers
        var sawPointer = false, pushes = 0
        // Blank and unblank may fold into one push to viewers (§14.1: paced per client).
        try eventually("a viewer-pointer and a push after the first", timeout: 10, interval: 0) {
            guard let f = v.next(timeout: 1) else { return false }
            frames.append(f)
            if f.command == 0x88 { sawPointer = true }
            if f.command == 0x15 { pushes += 1 }
            return sawPointer && pushes >= 2
        }
        let ask = v.request(0x16, device: 0xFF)
        frames.append(try XCTUnwrap(v.reply(to: ask), "state reply"))
        for f in frames { XCTAssertEqual(f.device, 0xFF, "command \(f.command) to a viewer carried device byte \(f.device)") }
    }

    func testC58AViewerIsRefusedWhatIsNotItsAndStays() throws {
        try start(.open)
        let v = try join("Guest", role: 3)
        v.request(0x06)   // floor-request
        let e = expectFailure(v.reply(), in: 0x14, code: 0x0901)
        XCTAssertEqual(e?.detail, 0x06, "detail: the command byte")
        XCTAssertEqual(e?.closes, false)
        let s = try XCTUnwrap(v.reply(to: v.request(0x16))?.json)
        XCTAssertEqual((s["devices"] as? [Any])?.count, 0, "a viewer sees no device names (§24.2)")
    }

    func testC54ACountdownIsOneSecondTo24Hours() throws {
        let (p, _) = try presenting()
        func timer(_ ms: UInt64) -> RawFrame? { p.reply(to: p.request(0x64, [4, 2] + u16(0xFFFF) + u64(ms))) }
        for bad: UInt64 in [0, 1, 999, 24 * 3_600_000 + 1] {
            let e = expectFailure(timer(bad), in: 0x14, code: 0x0705)
            XCTAssertEqual(e?.closes, false, "\(bad) ms")
        }
        XCTAssertEqual(timer(1000)?.command, 0x13, "one second")
        XCTAssertEqual(timer(24 * 3_600_000)?.command, 0x13, "24 hours")
    }

    func testC55NotesAreOnlyForWhoeverPresentsAndNeverInTheState() throws {
        let (p, id) = try presenting()
        let other = try join("Ben")
        let e = expectFailure(other.reply(to: other.request(0x60, id + u32(0))), in: 0x14, code: 0x0701)
        XCTAssertEqual(e?.closes, false)
        let notes = try XCTUnwrap(p.reply(to: p.request(0x60, id + u32(0))))
        XCTAssertEqual(notes.command, 0x61, "notes to the presenter: \(String(describing: notes.error))")
        let s = try XCTUnwrap(other.reply(to: other.request(0x16))?.json)
        let console = s["console"] as? [String: Any]
        XCTAssertNil(console?["notes"], "no notes in the state")
    }

    func testC56SoundSetOutOfRangeIsRefused() throws {
        let (p, _) = try presenting()
        expectFailure(p.reply(to: p.request(0xA0, [101, 255])), in: 0x14, code: 0x0D00)
        XCTAssertEqual(p.reply(to: p.request(0xA0, [40, 255]))?.command, 0xA1, "sound-set-ok")
    }

    func testC59OneAnswerPerDeviceAndNoPollIsNoSuchPoll() throws {
        let (p, _) = try presenting()
        let v = try join("Guest", role: 3)
        expectFailure(v.reply(to: v.request(0x81, u32(0) + [0] + u16(0))), in: 0x14, code: 0x0903)
        let poll = Array(#"{"question":"Which?","kind":"choice","answers":["A","B"],"correct":null}"#.utf8)
        XCTAssertEqual(p.reply(to: p.request(0x80, poll))?.command, 0x13, "poll-ask ok")
        XCTAssertEqual(v.reply(to: v.request(0x81, u32(0) + [0] + u16(0)))?.command, 0x13)
        XCTAssertEqual(v.reply(to: v.request(0x81, u32(0) + [1] + u16(0)))?.command, 0x13, "answering again replaces")
        try eventually("the presenter's state counts one answer, for B", timeout: 5, interval: 0) {
            let s = p.reply(to: p.request(0x16))?.json
            let poll = (s?["audience"] as? [String: Any])?["poll"] as? [String: Any]
            return poll?["total"] as? Int == 1 && (poll?["counts"] as? [Int]) == [0, 1]
        }
    }

    func testC61TheRecordIsTheModeratorsAndEmptyUntilSomethingWasShown() throws {
        try start(.moderated)
        let m = try join("Chair", role: 2)
        let e = expectFailure(m.reply(to: m.request(0xB0)), in: 0x14, code: 0x0B02)
        XCTAssertEqual(e?.closes, false)
        let p = try join("Ana")
        expectFailure(p.reply(to: p.request(0xB0)), in: 0x14, code: 0x0B01)
    }

    func testC62APlainClientOnATLSPortIsToldTLSIsRequired() throws {
        try start(.open) { $0.tls = true }
        // Plain bytes on purpose: what a client that doesn't speak TLS gets (§25.5).
        let s = try RawSocket(port: harness.port)
        _ = s.send(frame(0x11, device: 0xFF, tag: 1, u32(7)))   // a ping, not a ClientHello
        let got = s.read(timeout: 5) { $0.count >= 8 && $0.count >= Int(be32($0, 4)) }
        XCTAssertGreaterThanOrEqual(got.count, 22, "one whole error frame: \(got)")
        guard got.count >= 22 else { return }
        XCTAssertEqual(got[0], 0x14, "error")
        XCTAssertEqual(got[1], 0xFF)
        XCTAssertEqual(be16(got, 8), 0x0E01, "tlsRequired")
        XCTAssertEqual(got[10] & 1, 1, "fatal")
    }

    /// C47, the other way round: every key a server sends in a busy room (a deck on the wall,
    /// a viewer, a poll, a question, a stroke, the timer) is documented: in §14.2's table by
    /// its path, or, inside the objects later sections define (`console`, `ink`, `audience`,
    /// `record`), in that section.
    func testC47EveryKeySentIsDocumented() throws {
        let (p, _) = try presenting()
        let v = try join("Guest", role: 3)
        let poll = Array(#"{"question":"Which?","kind":"text","answers":[],"correct":null}"#.utf8)
        XCTAssertEqual(p.reply(to: p.request(0x80, poll))?.command, 0x13, "poll-ask")
        XCTAssertEqual(v.reply(to: v.request(0x81, u32(0) + [0xFF] + u16(3) + Array("yes".utf8)))?.command, 0x13, "an answer")
        XCTAssertEqual(v.reply(to: v.request(0x84, [1] + u16(4) + Array("Why?".utf8)))?.command, 0x13, "a question")
        p.request(0x35, [1, 2, 0, 0] + u16(1) + u16(100) + u16(100))
        XCTAssertEqual(p.reply(to: p.request(0x37, u16(0)))?.command, 0x70, "stroke-ok")
        XCTAssertEqual(p.reply(to: p.request(0x64, [1, 2] + u16(5) + u64(600_000)))?.command, 0x13, "timer")
        let doc = try String(contentsOfFile: Repository.path("docs/protocol.md"), encoding: .utf8)
        func section(_ heading: String) throws -> Substring {
            let start = try XCTUnwrap(doc.range(of: "\n" + heading + " "), heading).upperBound
            let end = doc[start...].range(of: "\n#")?.lowerBound ?? doc.endIndex
            return doc[start..<end]
        }
        let table = try section("### 14.2")
        let objects = ["console": try section("### 20.1"), "ink": try section("### 22.6"), "audience": try section("### 24.6"), "record": try section("### 26.3")]
        var missing: [String] = []
        func walk(_ value: Any, path: String, top: String?) {
            if let o = value as? [String: Any] {
                for (k, v) in o {
                    let child = path.isEmpty ? k : path + "." + k
                    let owner = top ?? (objects[k] != nil ? k : nil)
                    if let owner, child != owner {
                        if let text = objects[owner], !text.contains("`\(child)`") && !text.contains("\"\(k)\"") && !text.contains("`\(k)`") {
                            missing.append(child)
                        }
                    } else if !table.contains("`\(child)`") {
                        missing.append(child)
                    }
                    walk(v, path: child, top: owner)
                }
            } else if let a = value as? [Any] {
                for e in a { walk(e, path: path + "[]", top: top) }
            }
        }
        for who in [p, v] {
            let s = try XCTUnwrap(who.reply(to: who.request(0x16))?.json)
            walk(s, path: "", top: nil)
        }
        XCTAssertEqual(Set(missing).sorted(), [], "keys the server sends that docs/protocol.md doesn't name")
    }
}

/// §16's worked example shows the states a server on its defaults sends (an outside
/// implementer found `audience` and `record` null there, and an output of 0×0).
final class WorkedExampleConformanceTests: ConformanceTestCase {
    func exampleStates() throws -> [[String: Any]] {
        let doc = try String(contentsOfFile: Repository.path("docs/protocol.md"), encoding: .utf8)
        let start = try XCTUnwrap(doc.range(of: "## 16. Worked example")).upperBound
        let end = try XCTUnwrap(doc.range(of: "## 17. ")).lowerBound
        return doc[start..<end].components(separatedBy: "```json\n").dropFirst().compactMap {
            let json = $0.components(separatedBy: "\n```")[0]
            return (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
        }
    }

    /// Every key path with its value (arrays by index), the values a room's hardware sets left out.
    func flatten(_ v: Any, _ path: String = "", into out: inout [String: String]) {
        if let o = v as? [String: Any] {
            for (k, x) in o { flatten(x, path.isEmpty ? k : path + "." + k, into: &out) }
        } else if let a = v as? [Any] {
            out[path] = "[\(a.count)]"
            for (i, x) in a.enumerated() { flatten(x, path + "[\(i)]", into: &out) }
        } else if !["revision", "epoch", "sound.device", "console.timer.serverTimeMs", "meeting"].contains(path), !path.hasPrefix("output.") {
            out[path] = "\(v)"
        }
    }

    func testTheWorkedExamplesFirstStateIsWhatADefaultServerSends() throws {
        try start(.open) { $0.room = "Room 4.12" }
        let p = try join("Ana's laptop")
        let real = try XCTUnwrap(p.reply(to: p.request(0x16))?.json)
        let example = try XCTUnwrap(try exampleStates().first, "no state in §16")
        var a: [String: String] = [:], b: [String: String] = [:]
        flatten(real, into: &a)
        flatten(example, into: &b)
        XCTAssertEqual(Set(a.keys).symmetricDifference(b.keys).sorted(), [], "the same keys")
        for (k, v) in a where b[k] != nil { XCTAssertEqual(b[k], v, "§16's \(k)") }

        // With a 12-page deck on the wall: the same keys as §16's state after present.
        p.request(0x06)
        _ = p.reply()
        let deck = try Fixtures.numberedDeck(count: 12, in: harness.dir)
        let id = try upload(p, path: deck).id
        XCTAssertEqual(p.reply(to: p.request(0x30, id + u32(1)))?.command, 0x31)
        let shown = try XCTUnwrap(p.reply(to: p.request(0x16))?.json)
        let states = try exampleStates()
        XCTAssertEqual(states.count, 4, "§16 shows four states")
        var c: [String: String] = [:], d: [String: String] = [:]
        flatten(shown, into: &c)
        flatten(try XCTUnwrap(states.dropFirst(2).first), into: &d)
        XCTAssertEqual(Set(c.keys).symmetricDifference(d.keys).sorted(), [], "the same keys with a deck on the wall")
    }
}
