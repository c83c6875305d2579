import Crypto
import Foundation
import LecternTestSupport
import XCTest

/// docs/protocol.md §19, rule by rule: one test per numbered rule, named after it, against
/// a real service over TCP, with frames written by hand from the document.
final class ConformanceTests: ConformanceTestCase {
    // MARK: framing and session

    func testC1HelloComesFirst() throws {
        let a = try connect(), b = try connect()
        XCTAssertEqual(a.hello.version, 1)
        XCTAssertEqual(a.hello.challenge.count, 32)
        XCTAssertNotEqual(a.hello.challenge, b.hello.challenge, "a fresh challenge for every connection")
        XCTAssertEqual(a.hello.maxFrameLength, 1_114_112)
        XCTAssertEqual(a.hello.presenter.rounds, 10_000)
        XCTAssertEqual(a.hello.room, "Test Room")
    }

    func testC2LengthCountsTheHeaderAndIntegersAreBigEndian() throws {
        let p = try connect()
        let t = p.request(0x11, [0x01, 0x02, 0x03, 0x04])   // ping: 12 bytes on the wire
        let pong = try XCTUnwrap(p.next())
        XCTAssertEqual(pong.command, 0x12)
        XCTAssertEqual(pong.tag, t)
        XCTAssertEqual(pong.body, [0x01, 0x02, 0x03, 0x04], "a 12-byte frame: length 0x0000000C")
    }

    func testC3BadLengthsCloseTheConnection() throws {
        let short = try connect()
        short.send([0x11, 0xFF, 0x00, 0x09, 0, 0, 0, 7])
        let e = expectFailure(short.next(), in: 0x14, code: 0x0001)
        XCTAssertEqual(e?.closes, true)
        XCTAssertEqual(e?.detail, 7)
        XCTAssertTrue(short.isClosed())

        let huge = try connect()
        huge.send([0x38, 0xFF, 0x00, 0x01, 0xFF, 0xFF, 0xFF, 0xFF])   // no body follows: answered at once
        let big = expectFailure(huge.next(), in: 0x14, code: 0x0002)
        XCTAssertEqual(big?.detail, 0xFFFF_FFFF)
        XCTAssertTrue(huge.isClosed())
    }

    func testC4AMalformedBodyClosesTheConnection() throws {
        let p = try connect()
        p.request(0x11, [1, 2, 3])   // a ping's nonce is 4 bytes
        let e = expectFailure(p.next(), in: 0x14, code: 0x0003)
        XCTAssertEqual(e?.detail, 0x11)
        XCTAssertEqual(e?.closes, true)
        XCTAssertTrue(p.isClosed())
    }

    func testC5UnknownCommandKeepsTheConnection() throws {
        let p = try join("Ana")
        for command: UInt8 in [0x42, 0x2A, 0x10] {   // unassigned, reserved, server-only
            p.request(command)
            let e = expectFailure(p.reply(), in: 0x14, code: 0x0004)
            XCTAssertEqual(e?.detail, UInt64(command))
            XCTAssertEqual(e?.closes, false)
        }
        XCTAssertFalse(p.closed)
    }

    func testC6TheFailureTravelsInTheCommandOfTheFrameItAnswers() throws {
        let p = try connect()
        p.request(0x0C, [0x07, 0, 0, 0] + u32(0))   // an unknown signal, not registered
        expectFailure(p.next(), in: 0x0E, code: 0x0305)
        p.request(0x16, [], device: 9)   // wrong device byte on a plain request
        expectFailure(p.next(), in: 0x14, code: 0x0005)
        p.request(0x01, registerBody(p, name: "Ana"), device: 9)   // wrong device byte on a register
        expectFailure(p.next(), in: 0x03, code: 0x0005)
        p.request(0x01, [0x00, 0x01, 0x01])   // a register body cut short
        let e = expectFailure(p.next(), in: 0x03, code: 0x0003)
        XCTAssertEqual(e?.closes, true)
    }

    func testC7TheBodyIsCheckedBeforeRegistration() throws {
        let p = try connect()
        let t = p.request(0x42)
        let f = p.next()
        expectFailure(f, in: 0x14, code: 0x0004)
        XCTAssertEqual(f?.tag, t)
    }

    func testC8RequestsBeforeRegisteringAreNotRegistered() throws {
        let p = try connect()
        for command: UInt8 in [0x16, 0x06, 0x32] {
            p.request(command)
            let e = expectFailure(p.next(), in: 0x14, code: 0x0006)
            XCTAssertEqual(e?.closes, false)
        }
        XCTAssertTrue(p.drain().isEmpty, "still open, nothing else sent")
    }

    func testC9OneDirectReplyPerRequest() throws {
        let p = try join("Ana")
        let t = p.request(0x16)
        let frames = p.drain()
        XCTAssertEqual(frames.filter { $0.tag == t }.map(\.command), [0x15], "one state for one state-request")
        let chunkTag = p.request(0x3A, [UInt8](repeating: 7, count: 32) + u64(0))   // fails: no upload
        XCTAssertEqual(p.drain().filter { $0.tag == chunkTag }.count, 1)
    }

    func testC10TheReplyComesBeforeThePushItCaused() throws {
        let p = try join("Ana")
        let t = p.request(0x06)
        let first = try XCTUnwrap(p.next())
        XCTAssertEqual(first.command, 0x07, "floor-ack first: \(first)")
        XCTAssertEqual(first.tag, t)
        XCTAssertEqual(p.statePush()?["floor"].flatMap { ($0 as? [String: Any])?["holder"] as? Int }, Int(p.device))
    }

    func testC11AWrongDeviceByteIsAnsweredAndIgnored() throws {
        let p = try join("Ana")
        p.request(0x06, device: 9)
        let e = expectFailure(p.next(), in: 0x14, code: 0x0005)
        XCTAssertEqual(e?.detail, 9)
        XCTAssertEqual(e?.closes, false)
        XCTAssertTrue(p.drain().allSatisfy { $0.command != 0x15 }, "the floor-request was ignored: no state push")
    }

    func testC12RegisterOnARegisteredConnection() throws {
        let p = try join("Ana")
        for byte in [UInt8(0xFF), p.device] {
            p.request(0x01, registerBody(p, name: "Ana"), device: byte)
            expectFailure(p.reply(), in: 0x03, code: 0x0007)
        }
    }

    func testC13FramesBeforeAFatalFrameAreAnswered() throws {
        let p = try join("Ana")
        var bytes = frame(0x11, device: p.device, tag: 1, u32(42))
        bytes += frame(0x16, device: p.device, tag: 2)
        bytes += [0x16, p.device, 0, 3, 0, 0, 0, 5]   // length 5: fatal
        bytes += frame(0x11, device: p.device, tag: 4, u32(43))
        p.send(bytes)
        var seen: [RawFrame] = []
        while let f = p.next() { seen.append(f) }
        XCTAssertEqual(seen.map(\.command), [0x12, 0x15, 0x14], "\(seen)")
        XCTAssertEqual(seen.map(\.tag), [1, 2, 3])
        XCTAssertTrue(p.closed)
    }

    func testC14ShuttingDownIsSentBeforeTheConnectionCloses() throws {
        let a = try join("Ana")
        let b = try connect()
        harness.service.stop()
        for p in [a, b] {
            let e = expectFailure(p.reply(), in: 0x14, code: 0x0603)
            XCTAssertEqual(e?.closes, true)
            XCTAssertTrue(p.isClosed())
        }
    }

    // MARK: keep-alive

    func testC16PingIsAnsweredWithItsNonceAndTag() throws {
        let p = try connect()
        p.send(frame(0x11, device: 0xFF, tag: 0x1234, u32(0xDEAD_BEEF)))
        let pong = try XCTUnwrap(p.next())
        XCTAssertEqual(pong.command, 0x12)
        XCTAssertEqual(pong.tag, 0x1234)
        XCTAssertEqual(be32(pong.body, 0), 0xDEAD_BEEF)
    }

    func testC17APongNobodyAskedForIsIgnored() throws {
        let p = try join("Ana")
        p.request(0x12, u32(0x5151_5151))
        XCTAssertTrue(p.drain().isEmpty)
    }

    /// The shortest keep-alive the config allows (2 s), announced in hello: a peer that
    /// answers nothing is sent `timedOut` and closed.
    func testC19ASilentPeerIsTimedOut() throws {
        try start { $0.keepaliveTimeout = 2 }
        let raw = try harness.raw()
        var bytes: [UInt8] = []
        while let more = raw.receive(timeout: 10), !more.isEmpty { bytes += more }   // pings unanswered, until closed
        XCTAssertEqual(be32(bytes, 8 + 42), 2000, "hello's timeoutMs is the config's")
        var at = 0
        var last: RawFrame?
        while at + 8 <= bytes.count {
            let n = Int(be32(bytes, at + 4))
            last = RawFrame(command: bytes[at], device: bytes[at + 1], tag: be16(bytes, at + 2), body: Array(bytes[(at + 8)..<(at + n)]))
            at += n
        }
        let e = expectFailure(last, in: 0x14, code: 0x0009)
        XCTAssertEqual(e?.closes, true)
    }

    // MARK: registration

    func testC20AndC21AGoodProofRegisters() throws {
        let p = try connect()
        let t = p.request(0x01, registerBody(p, name: "Ana's laptop"))
        let ok = try XCTUnwrap(p.next())
        XCTAssertEqual(ok.command, 0x02)
        XCTAssertEqual(ok.tag, t)
        XCTAssertEqual(ok.device, 1)
        XCTAssertEqual(Array(ok.body.prefix(2)), [1, 1], "device 1, presenter")
        XCTAssertEqual(ok.body.count, 19, "id, role, flags, 16-byte token")
        let state = try XCTUnwrap(p.next())
        XCTAssertEqual(state.command, 0x15)
        XCTAssertEqual(state.device, 0)
        XCTAssertEqual((state.json?["devices"] as? [[String: Any]])?.first?["name"] as? String, "Ana's laptop")
    }

    func testC22AWrongProofMayBeRetried() throws {
        let p = try connect()
        p.request(0x01, registerBody(p, name: "Ana", passcode: "not it"))
        let e = expectFailure(p.next(), in: 0x03, code: 0x0101)
        XCTAssertEqual(e?.closes, false)
        p.request(0x01, registerBody(p, name: "Ana"))
        XCTAssertEqual(p.next()?.command, 0x02)
    }

    func testC23AnotherVersionClosesTheConnection() throws {
        let p = try connect()
        p.request(0x01, registerBody(p, name: "Ana", version: 2))
        let e = expectFailure(p.next(), in: 0x03, code: 0x0008)
        XCTAssertEqual(e?.detail, 2)
        XCTAssertEqual(e?.closes, true)
        XCTAssertTrue(p.isClosed())
    }

    func testC24ATokenOfAnotherLengthIsMalformed() throws {
        let p = try connect()
        p.request(0x01, registerBody(p, name: "Ana", token: [1, 2, 3, 4, 5]))
        let e = expectFailure(p.next(), in: 0x03, code: 0x0003)
        XCTAssertEqual(e?.closes, true)
    }

    func testC25NamesWithControlCharactersAreRefused() throws {
        let p = try connect()
        for name in ["", String(repeating: "a", count: 65), "Ana\u{202E}", "Ana\u{0007}", "Ana\u{2028}"] {
            p.request(0x01, registerBody(p, name: name))
            expectFailure(p.next(), in: 0x03, code: 0x0105)
        }
        p.request(0x01, registerBody(p, name: "Ana 👩\u{200D}💻"))
        XCTAssertEqual(p.next()?.command, 0x02, "a joiner in an emoji is no control character")
    }

    func testC27UnregisterThenClose() throws {
        let p = try join("Ana")
        let t = p.request(0x04)
        let ok = try XCTUnwrap(p.reply())
        XCTAssertEqual(ok.command, 0x05)
        XCTAssertEqual(ok.tag, t)
        XCTAssertTrue(p.isClosed())
    }

    func testC26OnlyWrongProofsAreThrottled() throws {
        // Three connections from one address (§2.4.2: an unregistered connection is closed
        // with its sixth error).
        let p = try connect()
        for _ in 0..<3 {   // refused for another reason: not counted
            p.request(0x01, registerBody(p, name: "Ana\u{7}"))
            expectFailure(p.next(), in: 0x03, code: 0x0105)
        }
        let q = try connect()
        for _ in 0..<5 {
            q.request(0x01, registerBody(q, name: "Ana", passcode: "wrong"))
            expectFailure(q.next(), in: 0x03, code: 0x0101)
        }
        let r = try connect()
        r.request(0x01, registerBody(r, name: "Ana"))   // even a good proof: not checked
        let e = expectFailure(r.next(), in: 0x03, code: 0x0102)
        XCTAssertGreaterThan(e?.detail ?? 0, 0, "ms to wait")
        XCTAssertLessThanOrEqual(e?.detail ?? .max, 2000)
        XCTAssertEqual(e?.closes, false)
    }

    // MARK: the floor

    func testC29AResumeIsTheOneNotificationForYourOwnRequest() throws {
        let a = try join("Ana")
        a.request(0x06)
        XCTAssertEqual(a.reply()?.body, [1, 0, 0])
        XCTAssertTrue(a.drain().allSatisfy { $0.command != 0x08 }, "no floor-granted (reason 1) for your own request")
        let token = a.token
        a.socket.close()   // dropped, not unregistered: the holder is kept for the grace period
        let again = try connect()
        let t = again.request(0x01, registerBody(again, name: "Ana", token: token))
        let ok = try XCTUnwrap(again.next())
        XCTAssertEqual(ok.command, 0x02)
        XCTAssertEqual(ok.tag, t)
        XCTAssertEqual(ok.body[0], a.device, "the same id")
        XCTAssertEqual(ok.body[2], 0b11, "resumed, floor restored")
        again.device = ok.body[0]
        let granted = try XCTUnwrap(again.reply())
        XCTAssertEqual(granted.command, 0x08)
        XCTAssertEqual(granted.body, [5, 0], "restored, by the server")
    }

    func testC28OpenRoomNewestRequestWins() throws {
        let a = try join("Ana"), b = try join("Ben")
        a.request(0x06)
        XCTAssertEqual(a.reply()?.body, [1, 0, 0])
        b.request(0x06)
        XCTAssertEqual(b.reply()?.body, [1, 0, 0])
        let lost = try XCTUnwrap(a.reply())
        XCTAssertEqual(lost.command, 0x09)
        XCTAssertEqual(lost.tag, 0)
        XCTAssertEqual(lost.body, [3, b.device])
    }

    func testC30AnActionOutside1To6IsMalformed() throws {
        let p = try join("Ana")
        p.request(0x0B, [7, 0])
        let e = expectFailure(p.reply(), in: 0x14, code: 0x0003)
        XCTAssertEqual(e?.closes, true)
    }

    func testC31HandOverTo0Or255IsAnInvalidTarget() throws {
        let p = try join("Ana")
        p.request(0x06)
        _ = p.reply()
        for target: UInt32 in [0, 255, 256, 70_000] {
            p.request(0x0C, [0xFD, 0, 0, 0] + u32(target))
            let e = expectFailure(p.reply(), in: 0x0E, code: 0x020A)
            XCTAssertEqual(e?.detail, UInt64(target), "§15: invalidTarget's detail is the id asked for, as sent")
        }
    }

    func testC32AWithdrawIsOneSnapshot() throws {
        try start(.moderated)
        let m = try join("Chair", role: 2), a = try join("Ana")
        a.request(0x06)
        _ = a.reply()
        m.request(0x0B, [1, a.device])
        _ = m.reply()
        let deck = try Fixtures.numberedDeck(count: 3, in: harness.dir)
        let id = try upload(a, path: deck).id
        a.request(0x30, id + u32(2))
        XCTAssertEqual(a.reply()?.command, 0x31)
        _ = m.drain()
        m.request(0x0B, [2, 0])
        XCTAssertEqual(m.reply()?.command, 0x13)
        let pushes = try pushesUntil(m) { ($0["screen"] as? [String: Any])?["content"] is NSNull }
        for s in pushes {
            let holder = (s["floor"] as? [String: Any])?["holder"]
            let content = (s["screen"] as? [String: Any])?["content"]
            XCTAssertFalse(holder is NSNull && !(content is NSNull), "floor free with the slide still up: \(s)")
        }
        XCTAssertEqual(pushes.count, 1)
    }

    /// State pushes to `p` up to the first one for which `done` holds.
    func pushesUntil(_ p: RawPeer, _ done: ([String: Any]) -> Bool) throws -> [[String: Any]] {
        var all: [[String: Any]] = []
        while let s = p.statePush() {
            all.append(s)
            if done(s) { return all }
        }
        XCTFail("no such state: \(all)")
        return all
    }

    // MARK: the screen

    func presenting(pages: Int = 3) throws -> RawPeer {
        let p = try join("Ana")
        p.request(0x06)
        _ = p.reply()
        let id = try upload(p, path: try Fixtures.numberedDeck(count: pages, in: harness.dir)).id
        p.request(0x30, id + u32(0))   // page 0 means 1
        XCTAssertEqual(p.reply()?.command, 0x31)
        XCTAssertEqual(try pushesUntil(p) { ($0["screen"] as? [String: Any])?["page"] as? Int == 1 }.isEmpty, false)
        return p
    }

    func testC33UnknownSignalBeforePermission() throws {
        let p = try join("Ana")   // without the floor
        p.request(0x0C, [0x07, 0, 0, 0] + u32(0))
        let e = expectFailure(p.reply(), in: 0x0E, code: 0x0305)
        XCTAssertEqual(e?.detail, 7)
        XCTAssertEqual(e?.closes, false)
    }

    func testC34Goto0IsOutOfRangePresent0IsPage1() throws {
        let p = try presenting()
        for page: UInt32 in [0, 4] {
            p.request(0x0C, [0x03, 0, 0, 0] + u32(page))
            XCTAssertEqual(expectFailure(p.reply(), in: 0x0E, code: 0x0303)?.detail, 3)
        }
    }

    func testC35NothingOnScreenAndBlankOnTheIdleScreen() throws {
        let p = try join("Ana")
        p.request(0x06)
        _ = p.reply()
        p.request(0x0C, [0x01, 0, 0, 0] + u32(0))
        expectFailure(p.reply(), in: 0x0E, code: 0x0304)
        p.request(0x0C, [0xF0, 0, 0, 0] + u32(0))
        XCTAssertEqual(p.reply()?.command, 0x0D)
        p.request(0x0C, [0xF1, 0, 0, 0] + u32(0))
        XCTAssertEqual(p.reply()?.command, 0x0D)
        p.request(0x32)
        XCTAssertEqual(p.reply()?.command, 0x13)
    }

    func testC36TheBlankStaysAcrossPageTurns() throws {
        let p = try presenting()
        p.request(0x0C, [0xF0, 0, 0, 0] + u32(0))
        XCTAssertEqual(p.reply()?.command, 0x0D)
        p.request(0x0C, [0x01, 0, 0, 0] + u32(0))
        XCTAssertEqual(p.reply()?.command, 0x0D)
        let s = try XCTUnwrap(try pushesUntil(p) { ($0["screen"] as? [String: Any])?["page"] as? Int == 2 }.last)
        XCTAssertEqual((s["screen"] as? [String: Any])?["blank"] as? String, "black")
    }

    func testC37ClipStatesShowAtOnce() throws {
        let p = try join("Ana")
        p.request(0x06)
        _ = p.reply()
        let id = try upload(p, path: try Fixtures.clip(in: harness.dir, seconds: 3)).id
        let play = p.request(0x20, id + [0x01])   // loop
        XCTAssertEqual(p.reply(to: play)?.command, 0x21)
        func clip(_ s: [String: Any]) -> [String: Any]? { (s["screen"] as? [String: Any])?["clip"] as? [String: Any] }
        _ = try pushesUntil(p) { clip($0)?["state"] as? String == "playing" }
        let pause = p.request(0x22)
        XCTAssertEqual(p.reply(to: pause)?.command, 0x23)
        XCTAssertEqual(p.statePush().flatMap(clip)?["state"] as? String, "paused", "the first push after clip-pause-ok")
        let seek = p.request(0x26, u32(1000))
        XCTAssertEqual(p.reply(to: seek)?.command, 0x27)
        let sought = try XCTUnwrap(p.statePush().flatMap(clip))
        XCTAssertEqual(sought["positionMs"] as? Int, 1000, "a seek while paused has a push of its own")
        XCTAssertEqual(sought["state"] as? String, "paused")
        let resume = p.request(0x28)
        XCTAssertEqual(p.reply(to: resume)?.command, 0x29)
        XCTAssertEqual(p.statePush().flatMap(clip)?["state"] as? String, "playing")
        let stop = p.request(0x24)
        XCTAssertEqual(p.reply(to: stop)?.command, 0x25)
        _ = try pushesUntil(p) { clip($0) == nil }
    }

    func testC38NoClipOnScreen() throws {
        let p = try join("Ana")
        p.request(0x06)
        _ = p.reply()
        for command: UInt8 in [0x22, 0x28, 0x24] {
            p.request(command)
            expectFailure(p.reply(), in: 0x14, code: 0x0502)
        }
        p.request(0x26, u32(0))
        expectFailure(p.reply(), in: 0x14, code: 0x0502)
    }

    // MARK: uploads

    func testC43UploadStoredCarriesTheClipsDuration() throws {
        let p = try join("Ana")
        let frames = try upload(p, path: try Fixtures.clip(in: harness.dir, seconds: 2)).frames
        let stored = try XCTUnwrap(frames.last)
        XCTAssertEqual(stored.command, 0x3C)
        XCTAssertEqual(stored.body[32], 2, "kind clip")
        XCTAssertEqual(Double(be32(stored.body, 45)), 2000, accuracy: 100)
    }

    func testC39AZeroByteFileIsRefusedAtBegin() throws {
        let p = try join("Ana")
        let n = Array("empty.pdf".utf8)
        p.request(0x38, [UInt8](repeating: 1, count: 32) + u64(0) + [0] + [UInt8](repeating: 0, count: 32) + u16(UInt16(n.count)) + n)
        expectFailure(p.reply(), in: 0x14, code: 0x0406)
    }

    func testC40FinishWithoutBeginIsNoUpload() throws {
        let p = try join("Ana")
        p.request(0x3B, [UInt8](repeating: 3, count: 32))
        expectFailure(p.reply(), in: 0x14, code: 0x0404)
    }

    func testC41ChunksAreSilentUntilOneIsWrong() throws {
        let p = try join("Ana")
        let id = [UInt8](repeating: 5, count: 32), n = Array("x.pdf".utf8)
        p.request(0x38, id + u64(100) + [1] + [UInt8](repeating: 0, count: 32) + u16(UInt16(n.count)) + n)
        XCTAssertEqual(p.reply()?.command, 0x39)
        p.request(0x3A, id + u64(0) + [UInt8](repeating: 0x25, count: 10))
        XCTAssertTrue(p.drain().filter { $0.command == 0x14 }.isEmpty)
        let t = p.request(0x3A, id + u64(50) + [1])
        let e = expectFailure(p.reply(), in: 0x14, code: 0x0405)
        XCTAssertEqual(e?.detail, 10)
        _ = t
    }

    func testC42TheLastProgressComesBeforeStored() throws {
        let p = try join("Ana")
        let deck = try Fixtures.numberedDeck(count: 2, in: harness.dir)
        let size = UInt64(try FileManager.default.attributesOfItem(atPath: deck)[.size] as! Int)
        let frames = try upload(p, path: deck).frames
        XCTAssertEqual(frames.map(\.command).suffix(2), [0x3D, 0x3C], "\(frames)")
        if let progress = frames.last(where: { $0.command == 0x3D }) { XCTAssertEqual(be64(progress.body, 32), size) }
        if let stored = frames.last { XCTAssertEqual(be32(stored.body, 41), 2, "page count") }
    }

    func testC44AHashMismatchIsRefused() throws {
        let p = try join("Ana")
        let deck = try Fixtures.numberedDeck(count: 1, in: harness.dir)
        let frames = try upload(p, path: deck, announce: [UInt8](repeating: 0xAB, count: 32)).frames
        expectFailure(frames.last, in: 0x14, code: 0x0403)
    }

    func testC45AllBytesSentButNotFinishedStaysPartialAndResumesAtTheEnd() throws {
        let a = try join("Ana")
        let deck = try Fixtures.numberedDeck(count: 2, in: harness.dir)
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: deck)))
        let id = Array(SHA256.hash(data: data)), n = Array("deck.pdf".utf8)
        let begin = id + u64(UInt64(data.count)) + [1] + [UInt8](repeating: 0, count: 32) + u16(UInt16(n.count)) + n
        XCTAssertEqual(a.reply(to: a.request(0x38, begin))?.command, 0x39)
        a.request(0x3A, id + u64(0) + data)
        _ = a.drain()
        a.request(0x04)   // leaves without upload-finish
        XCTAssertTrue(a.isClosed())

        let b = try join("Ben")
        let ready = try XCTUnwrap(b.reply(to: b.request(0x38, begin)))
        XCTAssertEqual(ready.command, 0x39)
        XCTAssertEqual(ready.body[32], 2, "send from offset: not in the store")
        try eventually("the part file closed with every byte") {
            let r = b.reply(to: b.request(0x38, begin))
            return r?.command == 0x39 && r.map { be64($0.body, 33) } == UInt64(data.count)
        }
        let stored = try XCTUnwrap(b.reply(to: b.request(0x3B, id)))
        XCTAssertEqual(stored.command, 0x3C, "\(String(describing: stored.error))")
        XCTAssertEqual(be32(stored.body, 41), 2)
    }

    func testC46TheUploaderWhoseFileWasTakenOverIsTold() throws {
        let a = try join("Ana"), b = try join("Ben")
        let id = [UInt8](repeating: 0x51, count: 32), n = Array("talk.pdf".utf8)
        let begin = id + u64(3000) + [1] + [UInt8](repeating: 0, count: 32) + u16(UInt16(n.count)) + n
        XCTAssertEqual(a.reply(to: a.request(0x38, begin))?.command, 0x39)
        a.request(0x3A, id + u64(0) + [UInt8](repeating: 0x25, count: 1000))
        XCTAssertEqual(b.reply(to: b.request(0x38, begin))?.command, 0x39, "Ben resumes the file")
        let chunk = a.request(0x3A, id + u64(1000) + [UInt8](repeating: 1, count: 1000))
        expectFailure(a.reply(to: chunk), in: 0x14, code: 0x0404)
        expectFailure(a.reply(to: a.request(0x3B, id)), in: 0x14, code: 0x0404)
    }

    // MARK: state

    func testC47EveryKeyIsPresent() throws {
        let p = try join("Ana")
        p.request(0x16)
        let s = try XCTUnwrap(p.reply()?.json)
        XCTAssertEqual(Set(s.keys).isSuperset(of: ["revision", "room", "floorMode", "floor", "devices", "screen"]), true)
        let floor = try XCTUnwrap(s["floor"] as? [String: Any])
        XCTAssertTrue(Set(floor.keys).isSuperset(of: ["holder", "delegate", "driver", "queue", "doNotDisturb", "graceRemainingMs"]))
        let screen = try XCTUnwrap(s["screen"] as? [String: Any])
        XCTAssertTrue(Set(screen.keys).isSuperset(of: ["content", "page", "pageCount", "blank", "clip"]))
    }

    func testC48StateRequestIsNotANewRevision() throws {
        let p = try join("Ana")
        p.request(0x06)
        _ = p.reply()
        let pushed = try XCTUnwrap(p.statePush()?["revision"] as? Int)
        let t = p.request(0x16)
        let reply = try XCTUnwrap(p.reply())
        XCTAssertEqual(reply.tag, t)
        XCTAssertEqual(reply.device, p.device)
        XCTAssertEqual(reply.json?["revision"] as? Int, pushed)
        p.request(0x06, device: p.device)   // holder again: nothing changes, no push
        _ = p.reply()
        p.request(0x0A)
        _ = p.reply()
        XCTAssertEqual(p.statePush()?["revision"] as? Int, pushed + 1)
    }

    // MARK: WebSocket

    /// §2.1.1 by hand: an upgrade without Origin (a native client) is accepted with no
    /// subprotocol selected; the first binary message is hello; a text message is closed
    /// with 1003.
    func testC50WebSocketCarriesTheSameFrames() throws {
        try start(webRemote: true)
        let port = try XCTUnwrap(harness.service.httpPort)
        let ws = try harness.raw(port: port)
        let key = Data((0..<16).map { UInt8($0) }).base64EncodedString()
        ws.send(
            Array(
                ("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8))
        var bytes: [UInt8] = []
        var head = ""
        while true {
            guard let more = ws.receive(timeout: 10), !more.isEmpty else { return XCTFail("no upgrade: \(head)") }
            bytes += more
            if let end = String(decoding: bytes, as: UTF8.self).range(of: "\r\n\r\n") {
                head = String(String(decoding: bytes, as: UTF8.self)[..<end.lowerBound])
                bytes = Array(bytes[(head.utf8.count + 4)...])
                break
            }
        }
        XCTAssertTrue(head.hasPrefix("HTTP/1.1 101"), head)
        XCTAssertFalse(head.lowercased().contains("sec-websocket-protocol"), "no subprotocol selected: \(head)")
        // The first message: binary (opcode 2), unmasked, carrying hello.
        while bytes.count < 12, let more = ws.receive(timeout: 10), !more.isEmpty { bytes += more }
        XCTAssertEqual(bytes[0] & 0x0F, 0x2, "binary")
        let offset = bytes[1] & 0x7F == 126 ? 4 : 2
        XCTAssertEqual(bytes[offset], 0x10, "hello")
        // A text message (masked, as from a client): closed with 1003.
        let mask: [UInt8] = [1, 2, 3, 4], text = Array("hi".utf8)
        ws.send([0x81, 0x80 | UInt8(text.count)] + mask + text.enumerated().map { $0.element ^ mask[$0.offset % 4] })
        var rest: [UInt8] = []
        while let more = ws.receive(timeout: 10), !more.isEmpty { rest += more }
        let all = bytes + rest
        let close = try XCTUnwrap(closeFrame(in: all), "no close frame")
        XCTAssertEqual(close, 1003)
    }

    /// The head of the server's answer to a WebSocket upgrade with `origin` (none: no header).
    func upgradeAnswer(origin: String?) throws -> String {
        let port = try XCTUnwrap(harness.service.httpPort)
        let ws = try harness.raw(port: port)
        defer { ws.close() }
        let key = Data((0..<16).map { UInt8($0) }).base64EncodedString()
        let originLine = origin.map { "Origin: \($0)\r\n" } ?? ""
        ws.send(
            Array(
                ("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" + originLine
                    + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8))
        var bytes: [UInt8] = []
        while let more = ws.receive(timeout: 10), !more.isEmpty {
            bytes += more
            if let end = String(decoding: bytes, as: UTF8.self).range(of: "\r\n\r\n") {
                return String(String(decoding: bytes, as: UTF8.self)[..<end.lowerBound])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    func testC51ACrossSiteUpgradeIsRefused() throws {
        try start(webRemote: true)
        let port = try XCTUnwrap(harness.service.httpPort)
        XCTAssertTrue(try upgradeAnswer(origin: "http://evil.example").hasPrefix("HTTP/1.1 403"), "another site's page")
        XCTAssertTrue(try upgradeAnswer(origin: "\(harness.scheme)://127.0.0.1:\(port + 1)").hasPrefix("HTTP/1.1 403"), "another port")
        XCTAssertTrue(try upgradeAnswer(origin: "\(harness.scheme)://127.0.0.1:\(port)").hasPrefix("HTTP/1.1 101"), "the page's own origin")
        XCTAssertTrue(try upgradeAnswer(origin: nil).hasPrefix("HTTP/1.1 101"), "a client that sends no Origin")
    }

    /// The status code of the first close frame (opcode 8) among server frames in `bytes`.
    func closeFrame(in bytes: [UInt8]) -> UInt16? {
        var at = 0
        while at + 2 <= bytes.count {
            var len = Int(bytes[at + 1] & 0x7F), head = 2
            if len == 126 { len = Int(be16(bytes, at + 2)); head = 4 } else if len == 127 { len = Int(be64(bytes, at + 2)); head = 10 }
            if bytes[at] & 0x0F == 0x8, len >= 2, at + head + 2 <= bytes.count { return be16(bytes, at + head) }
            at += head + len
        }
        return nil
    }
}
