import LecternModel
import LecternProtocol
@testable import LecternRoom
import XCTest

/// The audience in the room core (§24): viewers, polls, questions, the lock; in memory.
final class AudienceCoreTests: XCTestCase {
    typealias H = RoomCoreHarness

    /// Registers connection `id` as a viewer (room passcode unless told); returns its register-ok.
    @discardableResult
    func view(_ h: H, _ id: ConnectionID, name: String = "", passcode: String = H.presenterPasscode, token: ResumeToken? = nil) -> RegisterOK? {
        let hello = h.open(id, address: "10.1.\(id / 250).\(id % 250 + 1)")
        let proof = RegisterProof.compute(
            passcode: passcode, parameters: hello.parameters(for: .viewer)!, challenge: hello.challenge, role: .viewer, name: name,
            resumeToken: token)
        let effects = h.send(.register(RegisterRequest(role: .viewer, proof: proof, resumeToken: token, name: name)), from: id)
        for m in H.messages(to: id, effects) { if case .registerOK(let ok) = m { return ok } }
        return nil
    }

    /// Ana (1) has the floor of an open room with deck 1 on page 1.
    func presenting(audience: PasscodeHash? = nil, mode: RoomCore.Keys.AudienceMode = .passcode) -> (H, DeviceID) {
        let h = H(floor: .open, catalog: [deck(1)], audience: audience, audienceMode: mode)
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        h.own(cid(1), from: 1, device: ana)
        h.shown(h.send(.present(content: cid(1), page: 1), from: 1, device: ana))
        return (h, ana)
    }

    func testAViewerJoinsWithTheRoomPasscodeAsAGuestAndCantDriveOrTakeTheFloor() {
        let (h, _) = presenting()
        guard let ok = view(h, 100) else { return XCTFail("viewer not registered") }
        XCTAssertEqual(ok.role, .viewer)
        XCTAssertEqual(ok.deviceID, ProtocolLimits.unregisteredID)
        let state = H.states(to: 100, h.send(.stateRequest, from: 100))
        XCTAssertEqual(state.first?.screen.page, 1, "a late joiner gets the page on the wall")
        XCTAssertEqual(state.first?.devices, [], "viewers get no device names")
        for m: Message in [.floorRequest, .control(.next), .present(content: cid(1), page: 2), .clear, .pollAsk(PollDraft(question: "Q?", kind: .yesno))] {
            XCTAssertEqual(H.errorCode(to: 100, h.send(m, from: 100)), .viewerNotAllowed, "\(m.command)")
        }
        XCTAssertEqual(h.core.snapshot(now: h.now).audience?.viewers, 1)
        XCTAssertEqual(h.core.snapshot(now: h.now).devices.map(\.name), ["Ana"], "a viewer is not a floor device")
    }

    func testTheAudiencePasscodeOpenAndOffAndTheThrottle() {
        let audienceKey = PasscodeHash.derive(passcode: "audience-pass", rounds: 10_000, salt: Array(repeating: 1, count: 16))
        let (h, _) = presenting(audience: audienceKey)
        XCTAssertNotNil(view(h, 100, passcode: "audience-pass"))
        XCTAssertNotNil(view(h, 101), "the room passcode lets viewers in too")
        XCTAssertNil(view(h, 102, passcode: H.moderatorPasscode))
        // Wrong guesses from one address are throttled like the other roles' (a minute later:
        // the room's budget for viewers, 5 at once, is whole again after the guess above).
        h.now += 61
        var codes: [ErrorCode?] = []
        for i in 0..<7 {
            let hello = h.open(ConnectionID(200 + i), address: "10.9.9.9")
            let proof = RegisterProof.compute(
                passcode: "guess\(i)", parameters: hello.parameters(for: .viewer)!, challenge: hello.challenge, role: .viewer, name: "", resumeToken: nil)
            codes.append(
                H.errorCode(to: ConnectionID(200 + i), h.send(.register(RegisterRequest(role: .viewer, proof: proof, resumeToken: nil, name: "")), from: ConnectionID(200 + i))))
        }
        XCTAssertEqual(codes.prefix(5).map { $0 }, Array(repeating: .wrongPasscode, count: 5))
        XCTAssertEqual(codes.last!, .tooManyAttempts)

        let (open, _) = presenting(mode: .open)
        XCTAssertNotNil(view(open, 100, passcode: "anything"), "an open audience needs no passcode")
        let (off, _) = presenting(mode: .off)
        let hello = off.open(100)
        let r = off.send(.register(RegisterRequest(role: .viewer, proof: [UInt8](repeating: 0, count: 32), resumeToken: nil, name: "")), from: 100)
        XCTAssertEqual(H.errorCode(to: 100, r), .roleUnavailable)
        _ = hello
    }

    func testViewersFollowTurnsAndBlankAndGetNoNames() {
        let (h, ana) = presenting()
        view(h, 100, name: "Zoe")
        let turn = h.send(.control(.next), from: 1, device: ana)
        let shown = h.shown(turn)
        XCTAssertEqual(H.states(to: 100, shown).last?.screen.page, 2)
        let blank = h.shown(h.send(.control(.blank(white: false)), from: 1, device: ana))
        XCTAssertEqual(H.states(to: 100, blank).last?.screen.blank, .black)
        XCTAssertFalse(String(decoding: allBytes(to: 100, h), as: UTF8.self).contains("Ana"))
    }

    func allBytes(to id: ConnectionID, _ h: H) -> [UInt8] {
        h.log.flatMap { e -> [UInt8] in if case .send(id, let b) = e { return b } else { return [] } }
    }

    /// Live results and the pointer are paced, and what is held back goes out at a wake
    /// (not the next tick): the last answers within 0.25 s, the last position within 50 ms.
    func testHeldBackResultsAndPointerGoOutAtTheirWake() throws {
        let (h, ana) = presenting()
        for i in 0..<2 { view(h, ConnectionID(100 + i)) }
        h.send(.pollAsk(PollDraft(question: "Ready?", kind: .yesno)), from: 1, device: ana)
        h.now += 1
        XCTAssertEqual(H.states(to: 1, h.send(.pollAnswer(poll: 0, .choice(0)), from: 100)).last?.audience?.poll?.total, 1, "the first answer at once")
        h.now += 0.01
        let held = h.send(.pollAnswer(poll: 0, .choice(1)), from: 101)
        XCTAssertTrue(H.states(to: 1, held).isEmpty, "the next one is held back")
        let wake = held.compactMap { e -> Double? in if case .wake(let at?) = e { return at } else { return nil } }.last
        XCTAssertEqual(try XCTUnwrap(wake, "the room asks to be woken for it"), h.now - 0.01 + 0.25, accuracy: 1e-6)
        h.now = wake!
        XCTAssertEqual(H.states(to: 1, h.handle(.wake)).last?.audience?.poll?.total, 2, "pushed at the wake")

        // The pointer: the first position at once to every viewer, the next held, the newest sent at the wake.
        h.now += 1
        let first = h.send(.ink(.pointer(InkPoint(x: 10, y: 10), lifted: false)), from: 1, device: ana)
        for v in [100, 101] as [ConnectionID] {
            XCTAssertEqual(H.messages(to: v, first), [.viewerPointer(ViewerPointer(page: 1, point: InkPoint(x: 10, y: 10), lifted: false))])
        }
        h.now += 0.01
        XCTAssertTrue(H.messages(to: 100, h.send(.ink(.pointer(InkPoint(x: 20, y: 20), lifted: false)), from: 1, device: ana)).isEmpty)
        h.now += 0.01
        let lift = h.send(.ink(.pointer(InkPoint(x: 30, y: 30), lifted: true)), from: 1, device: ana)
        XCTAssertTrue(H.messages(to: 100, lift).isEmpty)
        h.now += 0.04
        XCTAssertEqual(H.messages(to: 101, h.handle(.wake)), [.viewerPointer(ViewerPointer(page: 1, point: InkPoint(x: 30, y: 30), lifted: true))], "the lift, at its turn")
        XCTAssertTrue(H.messages(to: 1, first).allSatisfy { if case .viewerPointer = $0 { false } else { true } }, "presenters don't get it")
    }

    func testAPollWithFiftyViewersCountsOneAnswerPerDeviceAcrossReconnects() throws {
        let (h, ana) = presenting()
        var tokens: [ConnectionID: ResumeToken] = [:]
        for i in 0..<50 { tokens[ConnectionID(100 + i)] = view(h, ConnectionID(100 + i), name: "Viewer \(i)")!.resumeToken }
        let ask = h.send(.pollAsk(PollDraft(question: "Best colour?", kind: .choice, answers: ["Red", "Green", "Blue"], correct: 1)), from: 1, device: ana)
        XCTAssertEqual(H.replies(to: 1, ask), [.ok])
        let seen = H.states(to: 100, ask).last?.audience?.poll
        XCTAssertEqual(seen?.question, "Best colour?")
        XCTAssertNil(seen?.counts, "no results for viewers before they are shown")
        XCTAssertNil(seen?.correct, "nor the correct answer")
        for i in 0..<50 {
            XCTAssertEqual(H.replies(to: ConnectionID(100 + i), h.send(.pollAnswer(poll: 0, .choice(i % 3)), from: ConnectionID(100 + i))), [.ok])
        }
        XCTAssertEqual(h.core.snapshot(now: h.now).audience?.poll?.counts, [17, 17, 16])
        // Viewer 100 drops and comes back with its token: its answer changes, the count doesn't grow.
        h.handle(.closed(100))
        XCTAssertEqual(view(h, 300, token: tokens[100])?.resumed, true)
        h.send(.pollAnswer(poll: 0, .choice(2)), from: 300)
        XCTAssertEqual(h.core.snapshot(now: h.now).audience?.poll?.counts, [16, 17, 17])
        XCTAssertEqual(H.errorCode(to: 300, h.send(.pollAnswer(poll: 0, .choice(5)), from: 300)), .badAnswer)
        XCTAssertEqual(H.errorCode(to: 300, h.send(.pollAnswer(poll: 9, .choice(0)), from: 300)), .noSuchPoll)
        h.send(.pollClose(poll: 0), from: 1, device: ana)
        XCTAssertEqual(H.errorCode(to: 300, h.send(.pollAnswer(poll: 0, .choice(0)), from: 300)), .pollClosed)
        let show = h.send(.pollShow(PollShow(poll: 0, results: true, answer: true)), from: 1, device: ana)
        let shownToViewer = H.states(to: 101, show).last?.audience?.poll
        XCTAssertEqual(shownToViewer?.counts, [16, 17, 17])
        XCTAssertEqual(shownToViewer?.correct, 1)
        let everything = String(decoding: allBytes(to: 101, h), as: UTF8.self)
        for i in 0..<50 { XCTAssertFalse(everything.contains("Viewer \(i)\""), "no names reach a viewer") }
        // The saved state keeps no names with answers.
        let saved = h.log.compactMap { if case .persist(let s) = $0 { return s } else { return nil } }.last!
        let json = String(decoding: try JSONEncoder().encode(saved), as: UTF8.self)
        XCTAssertFalse(json.contains("Viewer "))
        XCTAssertTrue(json.contains("Best colour?"))
    }

    func testOnlyTheDriverOrModeratorRunsPollsAndOpenTextPicksReachViewers() {
        let (h, ana) = presenting()
        let ben = h.join(2, name: "Ben")
        XCTAssertEqual(H.errorCode(to: 2, h.send(.pollAsk(PollDraft(question: "Q?", kind: .text)), from: 2, device: ben)), .audienceOnly)
        h.send(.pollAsk(PollDraft(question: "One word?", kind: .text)), from: 1, device: ana)
        view(h, 100)
        view(h, 101)
        h.send(.pollAnswer(poll: 0, .text("fast")), from: 100)
        h.send(.pollAnswer(poll: 0, .text("rude word")), from: 101)
        XCTAssertEqual(h.core.snapshot(now: h.now).audience?.poll?.texts, ["fast", "rude word"])
        let show = h.send(.pollShow(PollShow(poll: 0, results: true, answer: false, picks: [0])), from: 1, device: ana)
        XCTAssertEqual(H.states(to: 100, show).last?.audience?.poll?.texts, ["fast"])
        XCTAssertEqual(H.errorCode(to: 1, h.send(.pollShow(PollShow(poll: 0, results: true, answer: false, picks: [5])), from: 1, device: ana)), .badAnswer)
        XCTAssertEqual(H.errorCode(to: 1, h.send(.pollAsk(PollDraft(question: "Q?", kind: .choice, answers: ["only"])), from: 1, device: ana)), .badPoll)
        XCTAssertEqual(H.errorCode(to: 1, h.send(.pollAsk(PollDraft(question: "Q?", kind: .choice, answers: Array(repeating: "x", count: 7))), from: 1, device: ana)), .badPoll)
    }

    func testQuestionsAreRankedByVotesHiddenOnesVanishAndDevicesArePaced() {
        let (h, ana) = presenting()
        view(h, 100, name: "Zoe")
        view(h, 101)
        view(h, 102)
        h.send(.questionAsk(text: "First?", named: false), from: 100)
        h.send(.questionAsk(text: "Second?", named: true), from: 101)
        XCTAssertEqual(H.errorCode(to: 100, h.send(.questionAsk(text: "Again?", named: false), from: 100)), .slowDown)
        h.send(.questionVote(id: 2), from: 100)
        let voted = h.send(.questionVote(id: 2), from: 102)
        let ranked = H.states(to: 100, voted).last?.audience?.questions ?? []
        XCTAssertEqual(ranked.map(\.text), ["Second?", "First?"])
        XCTAssertEqual(ranked.map(\.votes), [2, 0])
        XCTAssertEqual(ranked.map(\.name), ["Guest 2", nil], "a name only when the asker gave it; anonymous by default")
        XCTAssertEqual(H.errorCode(to: 100, h.send(.questionMark(id: 1, .hide), from: 100)), .viewerNotAllowed)
        let hidden = h.send(.questionMark(id: 1, .hide), from: 1, device: ana)
        XCTAssertEqual(H.states(to: 100, hidden).last?.audience?.questions.map(\.id), [2])
        XCTAssertEqual(H.states(to: 1, hidden).last?.audience?.questions.map(\.id), [2, 1], "the presenter still sees it, marked hidden")
        h.send(.questionMark(id: 2, .showOnWall), from: 1, device: ana)
        XCTAssertEqual(h.core.snapshot(now: h.now).audience?.wallQuestion, 2)
        h.now += 11
        XCTAssertEqual(H.replies(to: 100, h.send(.questionAsk(text: "Later?", named: false), from: 100)), [.ok])
        XCTAssertEqual(H.errorCode(to: 102, h.send(.questionAsk(text: String(repeating: "x", count: 301), named: false), from: 102)), .tooLong)
    }

    func testLockUnlockDownloadAndTheEndOfTheMeeting() {
        let (h, ana) = presenting()
        view(h, 100)
        XCTAssertEqual(h.core.snapshot(now: h.now).audience?.locked, true)
        let unlocked = h.send(.audienceSet(.unlock), from: 1, device: ana)
        XCTAssertEqual(H.states(to: 100, unlocked).last?.audience?.locked, false)
        h.send(.audienceSet(.allowDownload), from: 1, device: ana)
        XCTAssertEqual(h.core.snapshot(now: h.now).audience?.download, true)
        h.send(.pollAsk(PollDraft(question: "Q?", kind: .yesno)), from: 1, device: ana)
        XCTAssertEqual(H.errorCode(to: 1, h.send(.audienceSet(.endMeeting), from: 1, device: ana)), .moderatorOnly)
        let mo = h.join(3, name: "Mo", role: .moderator)
        let ended = h.send(.audienceSet(.endMeeting), from: 3, device: mo)
        // The whole room's meeting ends (§27, MeetingCoreTests): the viewer is let go, told why.
        XCTAssertEqual(H.errorCode(to: 100, ended), .meetingEnded)
        let a = h.core.snapshot(now: h.now).audience
        XCTAssertNil(a?.poll)
        XCTAssertEqual(a?.locked, true)
        XCTAssertEqual(a?.download, false)
    }

    func testTheMeetingEndsWhenTheRoomIsIdleLongEnough() {
        let h = H(floor: .open, catalog: [deck(1)]) { $0.audienceIdleMinutes = 1 }
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        h.send(.pollAsk(PollDraft(question: "Q?", kind: .yesno)), from: 1, device: ana)
        h.send(.unregister, from: 1, device: ana)
        h.handle(.closed(1))
        h.handle(.tick)
        h.now += 59
        h.handle(.tick)
        XCTAssertNotNil(h.core.snapshot(now: h.now).audience?.poll)
        h.now += 2
        h.handle(.tick)
        XCTAssertNil(h.core.snapshot(now: h.now).audience?.poll)
    }

    func testTheAudienceIsFullAtItsLimit() {
        let (h, _) = presenting(mode: .open)
        for i in 0..<AudienceLimits.maxViewers { XCTAssertNotNil(view(h, ConnectionID(100 + i))) }
        let hello = h.open(1000)
        let r = h.send(.register(RegisterRequest(role: .viewer, proof: [UInt8](repeating: 0, count: 32), resumeToken: nil, name: "")), from: 1000)
        XCTAssertEqual(H.errorCode(to: 1000, r), .audienceFull)
        _ = hello
    }

    func testPollsAndQuestionsSurviveARestart() {
        let (h, ana) = presenting()
        view(h, 100)
        h.send(.pollAsk(PollDraft(question: "Kept?", kind: .yesno)), from: 1, device: ana)
        h.send(.pollAnswer(poll: 0, .choice(0)), from: 100)
        h.send(.questionAsk(text: "Still there?", named: false), from: 100)
        let saved = h.log.compactMap { if case .persist(let s) = $0 { return s } else { return nil } }.last!
        let data = try! JSONEncoder().encode(saved)
        let back = try! JSONDecoder().decode(SavedState.self, from: data)
        let h2 = H(floor: .open, catalog: [deck(1)])
        _ = h2.core.restore(back, screen: nil, now: h2.now, wall: h2.wall.seconds)
        let a = h2.core.snapshot(now: h2.now).audience
        XCTAssertEqual(a?.poll?.question, "Kept?")
        XCTAssertEqual(a?.poll?.counts, [1, 0])
        XCTAssertEqual(a?.questions.map(\.text), ["Still there?"])
    }

    /// A burst of answers costs a few pushes to the presenters, not one each; the last
    /// counts reach them by the next tick; viewers get none of these pushes.
    func testLiveResultsArePacedAndReachThePresenterByTheNextTick() {
        let (h, ana) = presenting()
        for i in 0..<40 { view(h, ConnectionID(100 + i)) }
        h.send(.pollAsk(PollDraft(question: "Q?", kind: .yesno)), from: 1, device: ana)
        var toAna: [Snapshot] = [], toViewer: [Snapshot] = []
        for i in 0..<40 {
            let e = h.send(.pollAnswer(poll: 0, .choice(i % 2)), from: ConnectionID(100 + i))
            toAna += H.states(to: 1, e)
            toViewer += H.states(to: 100, e)
        }
        XCTAssertLessThanOrEqual(toAna.count, 2, "paced: one push, the rest owed")
        XCTAssertEqual(toViewer.count, 0)
        let tick = h.handle(.tick)
        XCTAssertEqual(H.states(to: 1, tick).last?.audience?.poll?.counts, [20, 20])
        XCTAssertTrue(H.states(to: 100, tick).isEmpty)
    }

    /// Audience text is drawn on the wall: a bidi override or a zero-width space is refused
    /// in questions, poll questions, choices and open answers, as in names; a line break is not.
    func testAudienceTextWithBidiOverridesOrZeroWidthCharactersIsRefused() throws {
        var questions = AudienceQuestions()
        XCTAssertThrowsError(try questions.ask("Why \u{202E}gnorw?", name: nil, voter: "a", now: 0)) { XCTAssertEqual(($0 as? LecternError)?.code, .badAnswer) }
        XCTAssertThrowsError(try questions.ask("Why\u{200B}?", name: nil, voter: "b", now: 0)) { XCTAssertEqual(($0 as? LecternError)?.code, .badAnswer) }
        XCTAssertNoThrow(try questions.ask("Why?\nAnd how?", name: nil, voter: "c", now: 0))
        XCTAssertThrowsError(try Poll.validate(PollDraft(question: "Best \u{202E}?", kind: .yesno, answers: ["Yes", "No"]))) {
            XCTAssertEqual(($0 as? LecternError)?.code, .badPoll)
        }
        XCTAssertThrowsError(try Poll.validate(PollDraft(question: "Best?", kind: .choice, answers: ["A\u{202E}", "B"]))) { XCTAssertEqual(($0 as? LecternError)?.code, .badPoll) }
        var open = Poll(id: 1, draft: PollDraft(question: "Why?", kind: .text))
        XCTAssertThrowsError(try open.answer(.text("fine\u{2066}"), voter: "a")) { XCTAssertEqual(($0 as? LecternError)?.code, .badAnswer) }
        XCTAssertNoThrow(try open.answer(.text("fine"), voter: "a"))
    }

    /// Device identities come back from state.json as hex; a damaged file (a key of the
    /// right length in bytes but not hex, or with a multi-byte character) is skipped, never
    /// a crash (the hand-written parser stepped past the string's end on such a key).
    func testSavedIdentitiesFromADamagedFileAreSkipped() {
        var a = Audience()
        let good = String(repeating: "ab", count: 16)
        let odd = String(repeating: "a", count: 30) + "é"   // 32 bytes, 31 characters
        a.restore(tokens: [good: 4, odd: 9, "zz" + String(repeating: "0", count: 30): 7, "short": 8])
        XCTAssertEqual(a.savedTokens, [good: 4])
    }
}
