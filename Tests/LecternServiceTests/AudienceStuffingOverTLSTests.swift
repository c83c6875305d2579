import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternTestSupport
import XCTest

/// One person can't outvote or flood a room (issue 25 finding 2, §24.1, §24.6), over real
/// sockets with TLS on as shipped: fresh registrations from one address are rationed, and
/// open-text answers never grow a state frame past the frame limit, also after a restart.
final class AudienceStuffingOverTLSTests: XCTestCase {
    func room(_ tweak: @escaping (inout Config) -> Void = { _ in }) throws -> ServiceHarness {
        try ServiceHarness(floor: .open) { c in
            c.tls = true
            c.audience = .open
            c.maxConnectionsPerAddress = 2048
            tweak(&c)
        }
    }

    func connect(_ h: ServiceHarness) throws -> LecternConnection {
        try LecternConnection(host: "127.0.0.1", port: h.port, tls: .pinned(h.service.tlsIdentity!.fingerprint))
    }

    func viewer(_ h: ServiceHarness, token: ResumeToken? = nil) throws -> (LecternConnection, RegisterOK) {
        let c = try connect(h)
        let ok = try c.register(name: "", role: .viewer, key: [UInt8](repeating: 0, count: 32), resumeToken: token)
        return (c, ok)
    }

    func testOneAddressRegisteringManyFreshViewersCantOutvoteTheRoom() throws {
        let h = try room()
        let ana = try connect(h)
        try ana.register(name: "Ana", role: .presenter, passcode: ServiceHarness.presenterPass)
        _ = try ana.requestFloor()
        _ = try ana.request(.pollAsk(PollDraft(question: "Ship it?", kind: .yesno)))
        var voters: [LecternConnection] = [], refused = 0
        let t0 = Date()
        for _ in 0..<60 {
            let c = try connect(h)
            do {
                try c.register(name: "", role: .viewer, key: [UInt8](repeating: 0, count: 32))
                _ = try c.request(.pollAnswer(poll: 0, .choice(0)))
                voters.append(c)
            } catch LecternConnection.ClientError.server(let e) {
                XCTAssertEqual(e.code, .slowDown, "a fresh identity past the address's budget: \(e)")
                XCTAssertGreaterThan(e.detail, 0, "it says how long to wait")
                refused += 1
                c.close()
            }
        }
        // 40 at once, then one every 3 s while the registrations went on.
        let allowed = AudienceLimits.newViewersPerAddress + Int(Date().timeIntervalSince(t0) / AudienceLimits.newViewerSeconds) + 1
        XCTAssertGreaterThanOrEqual(voters.count, AudienceLimits.newViewersPerAddress)
        XCTAssertLessThanOrEqual(voters.count, allowed, "60 registrations from one host: about 40 votes")
        XCTAssertEqual(refused, 60 - voters.count)
        let n = voters.count
        let s = try ana.waitForState { $0.audience?.poll?.total == n }
        XCTAssertEqual(s.audience?.poll?.counts, [n, 0])
        // Coming back with its token, a voter is the same person: its vote is replaced, not added.
        let token = try XCTUnwrap(voters[0].registration?.resumeToken)
        voters[0].close()
        let (again, ok) = try viewer(h, token: token)
        XCTAssertTrue(ok.resumed)
        _ = try again.request(.pollAnswer(poll: 0, .choice(1)))
        let after = try ana.waitForState { $0.audience?.poll?.counts == [n - 1, 1] }
        XCTAssertEqual(after.audience?.poll?.total, n, "the same person, not one more")
        for v in voters { v.close() }
    }

    /// The longest state frame a client got (re-encoded as the server sends it).
    func frameBytes(_ s: Snapshot) -> Int { Message.state(s).encode(tag: 0, deviceID: 0).count }

    func testOpenTextAnswersNeverGrowTheStatePastAFrameAndStatusWorksAlsoAfterARestart() throws {
        let h = try room { $0.audienceNewPerAddress = 1000 }
        let ana = try connect(h)
        try ana.register(name: "Ana", role: .presenter, passcode: ServiceHarness.presenterPass)
        let mod = try connect(h)
        try mod.register(name: "Mod", role: .moderator, passcode: ServiceHarness.moderatorPass)
        _ = try ana.requestFloor()
        _ = try ana.request(.pollAsk(PollDraft(question: "Say anything", kind: .text)))
        let answer = { (i: Int) in "\(i) " + String(repeating: "\u{1F4A5}", count: 48) }   // ~200 bytes, 4-byte characters
        var taken = 0, full = 0
        for i in 0..<360 {
            let (v, _) = try viewer(h)
            do {
                _ = try v.request(.pollAnswer(poll: 0, .text(answer(i))))
                taken += 1
            } catch LecternConnection.ClientError.server(let e) {
                XCTAssertEqual(e.code, .tooMany, "\(e)")
                full += 1
            }
            v.close()
        }
        XCTAssertGreaterThan(full, 0, "an open question takes at most 64 KiB of answers")
        let kept = (0..<taken).reduce(0) { $0 + answer($1).utf8.count }
        XCTAssertLessThanOrEqual(kept, AudienceLimits.maxTextBytesPerPoll)
        XCTAssertGreaterThan(kept + answer(taken).utf8.count, AudienceLimits.maxTextBytesPerPoll, "refused only once the next didn't fit")
        for c in [ana, mod] {
            let s = try c.waitForState { $0.audience?.poll?.textCount == taken }
            XCTAssertEqual(s.audience?.poll?.texts?.count, AudienceLimits.stateTexts, "the newest 50 only")
            XCTAssertLessThan(frameBytes(s), 64 * 1024)
            // The rest a page at a time.
            var all: [String] = []
            while all.count < taken {
                let page = try c.audienceFetch(AudienceFetch(what: .texts, offset: UInt32(all.count), count: 200))
                XCTAssertEqual(page.total, taken)
                all += page.texts ?? []
            }
            XCTAssertEqual(all.first, answer(0))
            XCTAssertEqual(Array(all.suffix(AudienceLimits.stateTexts)), s.audience?.poll?.texts)
        }
        XCTAssertEqual(try status(h, moderator: false).status, 0)
        XCTAssertEqual(try status(h, moderator: true).status, 0)
        ana.close()
        mod.close()

        // What an older service left on disk (6,000 answers, as in the attack) is summarised too.
        h.service.stop()
        try injectAnswers(6000, into: h.dir + "/data/state.json")
        try h.restart()
        for moderator in [false, true] {
            let r = try status(h, moderator: moderator)
            XCTAssertEqual(r.status, 0, r.err)
        }
        let c = try connect(h)
        try c.register(name: "Ana", role: .presenter, passcode: ServiceHarness.presenterPass)
        let s = try c.state()
        XCTAssertEqual(s.audience?.poll?.textCount, taken + 6000)
        XCTAssertEqual(s.audience?.poll?.texts?.count, AudienceLimits.stateTexts)
        XCTAssertLessThan(frameBytes(s), 64 * 1024, "a frame stays small however many answers were kept")
    }

    /// `lectern status` as a presenter or the moderator, TLS pinned on first use.
    func status(_ h: ServiceHarness, moderator: Bool) throws -> (out: String, err: String, status: Int32) {
        let env = [
            "LECTERN_PASSCODE=\(ServiceHarness.presenterPass)", "LECTERN_MODERATOR_PASSCODE=\(ServiceHarness.moderatorPass)",
            "LECTERN_KNOWN_ROOMS=\(h.dir)/known", "LECTERN_SESSION_FILE=\(h.dir)/session-\(UUID().uuidString)", "PATH=/usr/bin:/bin",
        ]
        let args = ["status", "--port", "\(h.port)", "--name", moderator ? "cli-mod" : "cli-presenter"] + (moderator ? ["--moderator"] : [])
        let r = try Fixtures.run("env", env + [try Fixtures.binary("lectern")] + args)
        return (String(decoding: r.out, as: UTF8.self), r.err, r.status)
    }

    /// Adds `n` open-text answers of 200 bytes to the newest poll in a saved state, as a
    /// service without the limits would have kept them.
    func injectAnswers(_ n: Int, into path: String) throws {
        var root = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        var audience = try XCTUnwrap(root["audience"] as? [String: Any])
        var book = try XCTUnwrap(audience["polls"] as? [String: Any])
        var polls = try XCTUnwrap(book["polls"] as? [[String: Any]])
        var poll = try XCTUnwrap(polls.last)
        var answers = (poll["answers"] as? [String: Any]) ?? [:]
        var order = (poll["textOrder"] as? [String]) ?? []
        for i in 0..<n {
            let voter = String(format: "stuffed%017d", i)
            answers[voter] = ["text": ["_0": "\(i) " + String(repeating: "z", count: 190)]]
            order.append(voter)
        }
        poll["answers"] = answers
        poll["textOrder"] = order
        polls[polls.count - 1] = poll
        book["polls"] = polls
        audience["polls"] = book
        root["audience"] = audience
        try JSONSerialization.data(withJSONObject: root).write(to: URL(fileURLWithPath: path))
    }
}
