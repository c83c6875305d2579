import LecternModel
import LecternProtocol
@testable import LecternRoom
import XCTest

/// One person can't outvote or flood a room (§24.1, §24.6, §24.7; issue 25 finding 2):
/// new identities rationed per address, answers bounded per poll in count and bytes,
/// and what grows with the audience summarised in the state and paged by audience-fetch.
final class AudienceBudgetCoreTests: XCTestCase {
    typealias H = RoomCoreHarness

    func testJoinBudgetTable() {
        var b = AudienceJoinBudget(burst: 3, refillSeconds: 2)
        // (time, address, given?)
        let steps: [(Double, String, Bool)] = [
            (0, "a", true), (0, "a", true), (0, "a", true),
            (0.5, "a", false),   // the burst is spent
            (0.5, "b", true),   // another address has its own
            (2.0, "a", true),   // one more every 2 s
            (2.1, "a", false),
            (100, "a", true), (100, "a", true), (100, "a", true), (100, "a", false),   // full again, never past the burst
        ]
        for (i, (t, address, given)) in steps.enumerated() {
            XCTAssertEqual(b.take(address, now: t) == nil, given, "step \(i)")
        }
        XCTAssertEqual(b.take("a", now: 101)!, 1, accuracy: 1e-9, "the wait is what is left of the next one's time")
    }

    func testTheJoinBudgetRemembersABoundedNumberOfAddresses() {
        var b = AudienceJoinBudget(burst: 1, refillSeconds: 1000)
        for i in 0..<(AudienceJoinBudget.maxAddresses + 500) { _ = b.take("10.\(i / 65536).\(i / 256 % 256).\(i % 256)", now: Double(i)) }
        XCTAssertLessThanOrEqual(b.addresses, AudienceJoinBudget.maxAddresses)
    }

    /// Registers a viewer on connection `id` from `address` in an open audience.
    @discardableResult
    func viewer(_ h: H, _ id: ConnectionID, address: String, token: ResumeToken? = nil) -> [RoomEffect] {
        let hello = h.open(id, address: address)
        let proof = RegisterProof.compute(
            passcode: "any", parameters: hello.parameters(for: .viewer)!, challenge: hello.challenge, role: .viewer, name: "", resumeToken: token)
        return h.send(.register(RegisterRequest(role: .viewer, proof: proof, resumeToken: token, name: "")), from: id)
    }

    func registered(_ effects: [RoomEffect], _ id: ConnectionID) -> RegisterOK? {
        for case .registerOK(let ok) in H.messages(to: id, effects) { return ok }
        return nil
    }

    func testOneAddressGetsFortyNewVotersThenOneEveryThreeSecondsAndATokenIsFree() {
        let h = H(floor: .open, audienceMode: .open)
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        h.send(.pollAsk(PollDraft(question: "Best?", kind: .choice, answers: ["A", "B"])), from: 1, device: ana)
        var tokens: [ResumeToken] = []
        var refused = 0
        for i in 0..<200 {
            let id = ConnectionID(100 + i)
            let e = viewer(h, id, address: "192.0.2.7")
            if let ok = registered(e, id) {
                tokens.append(ok.resumeToken)
                h.send(.pollAnswer(poll: 0, .choice(1)), from: id, device: 0xFF)
            } else {
                XCTAssertEqual(H.errorCode(to: id, e), .slowDown, "a fresh identity past the address's budget")
                refused += 1
            }
        }
        XCTAssertEqual(tokens.count, AudienceLimits.newViewersPerAddress)
        XCTAssertEqual(h.core.snapshot(now: h.now).audience?.poll?.counts, [0, AudienceLimits.newViewersPerAddress], "200 registrations in a second: 40 votes")
        // Honest people elsewhere still count, each once.
        for i in 0..<30 {
            let id = ConnectionID(1000 + i)
            XCTAssertNotNil(registered(viewer(h, id, address: "198.51.100.\(i + 1)"), id))
            h.send(.pollAnswer(poll: 0, .choice(0)), from: id, device: 0xFF)
        }
        XCTAssertEqual(h.core.snapshot(now: h.now).audience?.poll?.counts, [30, 40])
        // A viewer coming back with its token is the same person and costs nothing.
        for (i, t) in tokens.prefix(10).enumerated() {
            h.handle(.closed(ConnectionID(100 + i)))
            XCTAssertEqual(registered(viewer(h, ConnectionID(2000 + i), address: "192.0.2.7", token: t), ConnectionID(2000 + i))?.resumed, true)
            h.send(.pollAnswer(poll: 0, .choice(1)), from: ConnectionID(2000 + i), device: 0xFF)
        }
        XCTAssertEqual(h.core.snapshot(now: h.now).audience?.poll?.counts, [30, 40], "a returning device's answer replaces its own")
        // Later, one more every 3 s.
        h.now += AudienceLimits.newViewerSeconds
        XCTAssertNotNil(registered(viewer(h, 3000, address: "192.0.2.7"), 3000))
        XCTAssertNil(registered(viewer(h, 3001, address: "192.0.2.7"), 3001))
    }

    func testTheBudgetFollowsTheConfig() {
        let h = H(floor: .open, audienceMode: .open) { $0.audienceNewPerAddress = 250 }
        for i in 0..<250 { XCTAssertNotNil(registered(viewer(h, ConnectionID(100 + i), address: "192.0.2.8"), ConnectionID(100 + i)), "viewer \(i)") }
    }

    func testAPollTakesBoundedAnswersInCountAndBytes() throws {
        var book = PollBook()
        try book.ask(PollDraft(question: "Say?", kind: .text))
        let long = String(repeating: "x", count: AudienceLimits.maxTextAnswerBytes)
        let fit = AudienceLimits.maxTextBytesPerPoll / AudienceLimits.maxTextAnswerBytes
        for i in 0..<fit { try book.answer(0, .text(long), voter: "v\(i)") }
        XCTAssertThrowsError(try book.answer(0, .text(long), voter: "late")) { XCTAssertEqual(($0 as? LecternError)?.code, .tooMany) }
        XCTAssertNoThrow(try book.answer(0, .text("short"), voter: "v0"), "replacing one's own answer with a shorter one is fine")
        var choice = PollBook()
        try choice.ask(PollDraft(question: "Pick?", kind: .yesno))
        for i in 0..<AudienceLimits.maxAnswersPerPoll { try choice.answer(0, .choice(0), voter: "v\(i)") }
        XCTAssertThrowsError(try choice.answer(0, .choice(1), voter: "late")) { XCTAssertEqual(($0 as? LecternError)?.code, .tooMany) }
        XCTAssertNoThrow(try choice.answer(0, .choice(1), voter: "v1"), "a device already counted may change its answer")
    }

    func testTheStateCarriesTheNewestTextsAndTheFirstQuestionsAndTheRestIsPaged() throws {
        let h = H(floor: .open, audienceMode: .open)
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        h.send(.pollAsk(PollDraft(question: "Say?", kind: .text)), from: 1, device: ana)
        for i in 0..<300 {
            let id = ConnectionID(100 + i)
            viewer(h, id, address: "10.2.\(i / 250).\(i % 250 + 1)")
            h.send(.pollAnswer(poll: 0, .text("answer \(i) " + String(repeating: "é", count: 90))), from: id, device: 0xFF)
            h.send(.questionAsk(text: "question \(i)?", named: false), from: id, device: 0xFF)
            if i >= 100 { h.handle(.closed(id)) }   // 250 viewers at once; the first 100 stay
        }
        let s = h.core.snapshot(now: h.now)
        let poll = try XCTUnwrap(s.audience?.poll)
        XCTAssertEqual(poll.texts?.count, AudienceLimits.stateTexts)
        XCTAssertEqual(poll.textCount, 300)
        XCTAssertEqual(poll.textsFrom, 250)
        XCTAssertTrue(poll.texts?.last?.hasPrefix("answer 299 ") == true, "the newest are carried")
        XCTAssertEqual(s.audience?.questions.count, AudienceLimits.stateQuestions)
        XCTAssertEqual(s.audience?.questionCount, AudienceLimits.maxQuestions, "200 questions in a meeting, whoever asks")
        XCTAssertLessThan(Message.state(s).encode(tag: 0, deviceID: 0).count, 64 * 1024, "the state stays small")

        // The rest a page at a time.
        let texts = H.replies(to: 1, h.send(.audienceFetch(AudienceFetch(what: .texts, offset: 0, count: 1000)), from: 1, device: ana))
        guard case .audiencePage(let page)? = texts.first else { return XCTFail("\(texts)") }
        XCTAssertEqual(page.total, 300)
        XCTAssertEqual(page.texts?.count, AudienceLimits.maxFetch, "at most 200 a page")
        XCTAssertTrue(page.texts?.first?.hasPrefix("answer 0 ") == true)
        let qs = H.replies(to: 1, h.send(.audienceFetch(AudienceFetch(what: .questions, offset: 150, count: 100)), from: 1, device: ana))
        guard case .audiencePage(let qpage)? = qs.first else { return XCTFail("\(qs)") }
        XCTAssertEqual(qpage.questions?.count, 50)
        XCTAssertEqual(qpage.total, 200)
        // A viewer may page the questions, never the answers.
        let v = H.replies(to: 100, h.send(.audienceFetch(AudienceFetch(what: .questions, offset: 0, count: 10)), from: 100, device: 0xFF))
        guard case .audiencePage(let vpage)? = v.first else { return XCTFail("\(v)") }
        XCTAssertEqual(vpage.questions?.count, 10)
        XCTAssertEqual(H.errorCode(to: 100, h.send(.audienceFetch(AudienceFetch(what: .texts, offset: 0, count: 10)), from: 100, device: 0xFF)), .viewerNotAllowed)
    }

    func testPictureBudgetTable() {
        var b = PictureBudget(capacityBytes: 100, maxPictures: 3)
        XCTAssertTrue(b.admit(cost: 40))
        XCTAssertTrue(b.admit(cost: 40))
        XCTAssertFalse(b.admit(cost: 40), "its bytes don't fit: refused before it is made")
        XCTAssertTrue(b.admit(cost: 10))
        XCTAssertFalse(b.admit(cost: 1), "three pictures at once")
        b.made(cost: 40, sent: true)
        XCTAssertEqual(b.bytes, 90, "sent bytes count until drained")
        XCTAssertFalse(b.admit(cost: 20))
        b.drained(bytes: 40)
        b.made(cost: 10, sent: false)
        XCTAssertEqual(b.bytes, 40)
        XCTAssertTrue(b.admit(cost: 60))
        XCTAssertEqual(PictureBudget.cost(width: 1920, height: 1080), 1920 * 1080 * 8)
    }

    func testFullSizePreviewsFromManyViewersAreAdmittedWithinTheBudget() {
        let h = H(floor: .open, catalog: [deck(1)], audienceMode: .open)
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        h.own(cid(1), from: 1, device: ana)
        h.shown(h.send(.present(content: cid(1), page: 1), from: 1, device: ana))
        var admitted = 0, refused = 0
        for i in 0..<60 {
            let id = ConnectionID(100 + i)
            viewer(h, id, address: "10.3.0.\(i + 1)")
            let e = h.send(.pagePreview(PagePreviewRequest(content: cid(1), page: 1, maxWidth: 0, maxHeight: 0)), from: id, device: 0xFF)
            if e.contains(where: { if case .renderPreview = $0 { true } else { false } }) {
                admitted += 1
            } else {
                XCTAssertEqual(H.errorCode(to: id, e), .slowDown)
                refused += 1
            }
        }
        XCTAssertEqual(admitted, PictureBudget.capacityBytes / PictureBudget.cost(width: 1920, height: 1080), "a few full-size pictures at once")
        XCTAssertEqual(admitted + refused, 60)
        // Made and sent: the bytes count until the viewer's output drains; then room again.
        let full = PagePreviewRequest(content: cid(1), page: 1, maxWidth: 0, maxHeight: 0)
        h.handle(.previewRendered(100, tag: 7, .success([])))
        viewer(h, 200, address: "10.3.1.1")
        XCTAssertEqual(H.errorCode(to: 200, h.send(.pagePreview(full), from: 200, tag: 1, device: 0xFF)), .slowDown)
        h.handle(.writable(100, true))
        XCTAssertNil(H.errorCode(to: 200, h.send(.pagePreview(full), from: 200, tag: 2, device: 0xFF)), "drained: admitted")
        // A closed viewer's picture still being made frees its bytes once it is made.
        viewer(h, 201, address: "10.3.1.2")
        XCTAssertEqual(H.errorCode(to: 201, h.send(.pagePreview(full), from: 201, tag: 1, device: 0xFF)), .slowDown)
        h.handle(.closed(101))
        h.handle(.previewRendered(101, tag: 7, .success([])))
        XCTAssertNil(H.errorCode(to: 201, h.send(.pagePreview(full), from: 201, tag: 2, device: 0xFF)))
        // A client that reads: its picture's bytes are settled 50 ms after it was sent.
        h.handle(.previewRendered(102, tag: 7, .success([])))
        viewer(h, 202, address: "10.3.1.3")
        XCTAssertEqual(H.errorCode(to: 202, h.send(.pagePreview(full), from: 202, tag: 1, device: 0xFF)), .slowDown)
        h.now += PictureBudget.settleSeconds
        h.handle(.wake)
        XCTAssertNil(H.errorCode(to: 202, h.send(.pagePreview(full), from: 202, tag: 2, device: 0xFF)))
    }
}
