import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
import LecternTestSupport
import XCTest

/// The audience over real sockets (docs/protocol.md §24): viewers follow and can't drive,
/// a poll with 50 viewers, one answer per device across reconnects, no names reach viewers,
/// questions, limits, and a restart that keeps polls and questions.
final class AudienceOverTCPTests: XCTestCase {
    /// A viewer connection (the room passcode's key derived once for many viewers).
    func viewer(_ h: ServiceHarness, name: String = "", key: [UInt8]? = nil, token: ResumeToken? = nil) throws -> LecternConnection {
        let c = try h.connect()
        let p = c.hello.parameters(for: .viewer)!
        let k = key ?? PasscodeHash.deriveKey(passcode: ServiceHarness.presenterPass, salt: p.salt, rounds: p.rounds)
        try c.register(name: name, role: .viewer, key: k, resumeToken: token)
        return c
    }

    func roomKey(_ h: ServiceHarness) throws -> [UInt8] {
        let c = try h.connect()
        defer { c.close() }
        let p = c.hello.parameters(for: .viewer)!
        return PasscodeHash.deriveKey(passcode: ServiceHarness.presenterPass, salt: p.salt, rounds: p.rounds)
    }

    func presenting(_ h: ServiceHarness, pages: Int = 4) throws -> (LecternConnection, ContentID) {
        let a = try h.presenter("Ana Presenter")
        _ = try a.requestFloor()
        let pdf = try Fixtures.numberedDeck(count: pages, in: Fixtures.tempDir("audience"))
        let stored = try a.upload(path: pdf)
        try a.present(stored.content, page: 1)
        return (a, stored.content)
    }

    func testAViewerFollowsTurnsAndBlankLandsOnTheCurrentPageAndCantDrive() throws {
        let h = try ServiceHarness(floor: .open)
        let (a, content) = try presenting(h)
        try a.control(.next)
        let v = try viewer(h, name: "Zoe")
        XCTAssertEqual(v.registration?.role, .viewer)
        XCTAssertEqual(try v.waitForState { _ in true }.screen.page, 2, "a late joiner lands on the live page")
        try a.control(.next)
        XCTAssertEqual(try v.waitForState { $0.screen.page == 3 }.screen.page, 3)
        try a.control(.blank(white: false))
        XCTAssertEqual(try v.waitForState { $0.screen.blank != .none }.screen.blank, .black)
        try a.control(.unblank)

        XCTAssertServerError(.viewerNotAllowed, try v.requestFloor())
        XCTAssertServerError(.viewerNotAllowed, try v.control(.next))
        XCTAssertServerError(.viewerNotAllowed, try v.present(content, page: 1))
        XCTAssertServerError(.viewerNotAllowed, try v.request(.audienceSet(.unlock)))
        XCTAssertEqual(try a.state().screen.page, 3, "nothing a viewer sent moved the wall")
        XCTAssertEqual(try v.state().devices, [], "a viewer sees no device names")
        XCTAssertEqual(try a.state().audience?.viewers, 1)
        XCTAssertFalse(try a.state().devices.contains { $0.name == "Zoe" }, "a viewer is not a floor device")

        // The slide at the phone's size, as the pipeline renders it; the live page only while locked.
        let phone = try PNG.decode(v.pagePreview(content, page: 3, maxWidth: 400))
        XCTAssertEqual(phone.width, 400)
        let pdf = h.dir + "/data/content/" + content.hex
        XCTAssertEqual(PixelCompare.differingPixels(phone, try h.expectedFrame(pdf: pdf, page: 3, width: 400, height: 225)), 0)
        XCTAssertServerError(.viewerNotAllowed, try v.pagePreview(content, page: 1, maxWidth: 400))
        XCTAssertServerError(.notesPrivate, try v.pagePreview(content, page: 3, maxWidth: 400, notesHalf: true))

        // Unlock and lock again: the viewers are told; unlocked they may fetch any page of the deck.
        _ = try a.request(.audienceSet(.unlock))
        XCTAssertEqual(try v.waitForState { $0.audience?.locked == false }.audience?.locked, false)
        XCTAssertEqual(try PNG.decode(v.pagePreview(content, page: 1, maxWidth: 400)).width, 400)
        try a.control(.blank(white: true))
        XCTAssertServerError(.notYourContent, try v.pagePreview(content, page: 3, maxWidth: 400), "nothing while the wall is blanked")
        try a.control(.unblank)
        _ = try a.request(.audienceSet(.lock))
        XCTAssertEqual(try v.waitForState { $0.audience?.locked == true }.audience?.locked, true)
    }

    func testAPollWithFiftyViewersIsExactAnonymousAndOneAnswerPerDeviceAcrossReconnects() throws {
        let h = try ServiceHarness(floor: .open) { $0.audienceNewPerAddress = 100 }   // 50 phones from one address
        let (a, _) = try presenting(h)
        let key = try roomKey(h)
        var viewers = try (0..<50).map { try viewer(h, name: "Secret Name \($0)", key: key) }
        _ = try a.request(.pollAsk(PollDraft(question: "Which?", kind: .choice, answers: ["A one", "B one", "C one", "D one"], correct: 2)))
        let asked = try viewers[0].waitForState { $0.audience?.poll != nil }.audience!.poll!
        XCTAssertNil(asked.counts)
        XCTAssertNil(asked.correct)
        for (i, v) in viewers.enumerated() { _ = try v.request(.pollAnswer(poll: asked.id, .choice(i % 4))) }
        XCTAssertEqual(try a.state().audience?.poll?.counts, [13, 13, 12, 12])

        // Viewer 0 drops and comes back with its token: the same device, its answer replaced.
        let token = viewers[0].registration!.resumeToken
        viewers[0].close()
        viewers[0] = try viewer(h, key: key, token: token)
        XCTAssertEqual(viewers[0].registration?.resumed, true)
        _ = try viewers[0].request(.pollAnswer(poll: 0, .choice(3)))
        XCTAssertEqual(try a.state().audience?.poll?.counts, [12, 13, 12, 13])
        XCTAssertEqual(try a.state().audience?.poll?.total, 50)

        _ = try a.request(.pollClose(poll: 0))
        XCTAssertServerError(.pollClosed, try viewers[1].request(.pollAnswer(poll: 0, .choice(0))))
        _ = try a.request(.pollShow(PollShow(poll: 0, results: true, answer: true)))
        let shown = try viewers[7].waitForState { $0.audience?.poll?.showResults == true }.audience!.poll!
        XCTAssertEqual(shown.counts, [12, 13, 12, 13])
        XCTAssertEqual(shown.correct, 2)
        // Nothing a viewer received names anyone.
        let raw = String(decoding: try viewers[7].state().jsonBytes(), as: UTF8.self)
        XCTAssertFalse(raw.contains("Secret Name"))
        XCTAssertFalse(raw.contains("Ana Presenter"))
        // Nor does the saved state keep names with the answers.
        let file = h.dir + "/data/state.json"
        try eventually("the poll is saved") { (try? String(contentsOfFile: file, encoding: .utf8))?.contains("showResults\":true") == true }
        let saved = try String(contentsOfFile: file, encoding: .utf8)
        XCTAssertTrue(saved.contains("Which?"))
        XCTAssertFalse(saved.contains("Secret Name"))
    }

    func testQuestionsRankHideAndTheirLimits() throws {
        let h = try ServiceHarness(floor: .open)
        let (a, _) = try presenting(h)
        let key = try roomKey(h)
        let v1 = try viewer(h, name: "Vic", key: key)
        let v2 = try viewer(h, key: key)
        let v3 = try viewer(h, key: key)
        _ = try v1.request(.questionAsk(text: "Abusive words", named: false))
        _ = try v2.request(.questionAsk(text: "Will slides be shared?", named: false))
        _ = try v1.request(.questionVote(id: 2))
        _ = try v3.request(.questionVote(id: 2))
        let listed = try a.state().audience!.questions
        XCTAssertEqual(listed.map(\.text), ["Will slides be shared?", "Abusive words"])
        XCTAssertEqual(listed.map(\.votes), [2, 0])
        XCTAssertTrue(listed.allSatisfy { $0.name == nil }, "anonymous by default")
        _ = try a.request(.questionMark(id: 1, .hide))
        XCTAssertEqual(try v3.waitForState { $0.audience?.questions.count == 1 }.audience!.questions.map(\.id), [2], "hidden ones vanish for viewers")
        XCTAssertServerError(.slowDown, try v1.request(.questionAsk(text: "Another?", named: false)))
        XCTAssertServerError(.tooLong, try v3.request(.questionAsk(text: String(repeating: "q", count: 301), named: false)))
        XCTAssertServerError(.badPoll, try a.request(.pollAsk(PollDraft(question: "Q?", kind: .choice, answers: ["1", "2", "3", "4", "5", "6", "7"]))))
    }

    func testPollsAndQuestionsSurviveARestartAndEndWithTheMeeting() throws {
        var h: ServiceHarness? = try ServiceHarness(floor: .open)
        let data = h!.dir + "/data"
        let (a, _) = try presenting(h!)
        let v = try viewer(h!)
        _ = try a.request(.pollAsk(PollDraft(question: "Kept?", kind: .yesno)))
        _ = try v.request(.pollAnswer(poll: 0, .choice(0)))
        _ = try v.request(.questionAsk(text: "Still here after a restart?", named: false))
        a.close()
        v.close()
        h = nil
        h = try ServiceHarness(floor: .open) { $0.dataDir = data }
        let m = try h!.moderator()
        let audience = try m.state().audience
        XCTAssertEqual(audience?.poll?.question, "Kept?")
        XCTAssertEqual(audience?.poll?.counts, [1, 0])
        XCTAssertEqual(audience?.questions.map(\.text), ["Still here after a restart?"])
        _ = try m.request(.audienceSet(.endMeeting))
        // Everyone is let go at the end (§27); the next meeting starts without them.
        let next = try h!.moderator()
        XCTAssertNil(try next.state().audience?.poll)
        XCTAssertEqual(try next.state().audience?.questions, [])
    }

    func testTheAudienceSettingOffAndAnAudiencePasscode() throws {
        let off = try ServiceHarness(floor: .open) { $0.audience = .off }
        XCTAssertServerError(.roleUnavailable, try viewer(off))
        let pass = try ServiceHarness(floor: .open) { $0.audiencePasscode = "audience-only-1" }
        let c = try pass.connect()
        try c.register(name: "", role: .viewer, passcode: "audience-only-1")
        XCTAssertEqual(c.registration?.role, .viewer)
        let p = try pass.connect()
        XCTAssertServerError(.wrongPasscode, try p.register(name: "X", role: .presenter, passcode: "audience-only-1"))
    }

    /// The wall's chart: each bar's length proportional to its count (the largest fills its
    /// track), the revealed correct one green; a page turn takes the chart off.
    func testTheWallChartsBarsAreProportionalToTheCounts() throws {
        let h = try ServiceHarness(floor: .open)
        let (a, content) = try presenting(h)
        let key = try roomKey(h)
        let counts = [6, 3, 0, 9]
        _ = try a.request(.pollAsk(PollDraft(question: "How many?", kind: .choice, answers: ["one", "two", "three", "four"], correct: 3)))
        var viewers: [LecternConnection] = []
        for (answer, n) in counts.enumerated() {
            for _ in 0..<n {
                let v = try viewer(h, key: key)
                _ = try v.request(.pollAnswer(poll: 0, .choice(answer)))
                viewers.append(v)
            }
        }
        _ = try a.request(.pollClose(poll: 0))
        _ = try a.request(.pollShow(PollShow(poll: 0, results: true, answer: true)))
        let first = try PNG.decode(a.screenshot())
        let tracks = WallCardDrawing.tracks(n: 4, width: first.width, height: first.height)
        var wall = first
        // The ok comes before the stage has drawn the card: wait for it on the output.
        try eventually("the chart is on the wall") {
            wall = try PNG.decode(a.screenshot())
            return wall.pixel(x: tracks[3].x + 2, y: tracks[3].y + tracks[3].height / 2) == WallCardDrawing.correctBar
        }
        var lengths: [Int] = []
        for (i, t) in tracks.enumerated() {
            let y = t.y + t.height / 2
            let colour = i == 3 ? WallCardDrawing.correctBar : WallCardDrawing.bar
            lengths.append((t.x..<t.maxX).filter { wall.pixel(x: $0, y: y) == colour }.count)
            XCTAssertEqual((t.x..<t.maxX).filter { wall.pixel(x: $0, y: y) == (i == 3 ? WallCardDrawing.bar : WallCardDrawing.correctBar) }.count, 0)
        }
        let full = tracks[0].width
        for (i, c) in counts.enumerated() {
            XCTAssertEqual(Double(lengths[i]), Double(full * c / 9), accuracy: 1, "bar \(i): \(lengths)")
        }
        // A page turn takes the chart off: the wall is the page again, exactly.
        try a.control(.next)   // control-ok comes once the page is shown
        let page = try PNG.decode(a.screenshot())
        XCTAssertEqual(PixelCompare.differingPixels(page, try h.expectedFrame(pdf: try pdfPath(h, content), page: 2)), 0)
    }

    /// Open text: only the answers the presenter picked reach the wall (the frame is the
    /// page with exactly that card over it) and the viewers.
    func testPickedOpenTextAnswersAppearOnTheWall() throws {
        let h = try ServiceHarness(floor: .open)
        let (a, content) = try presenting(h)
        let key = try roomKey(h)
        _ = try a.request(.pollAsk(PollDraft(question: "One word for today?", kind: .text)))
        let words = ["insightful", "long", "rude words here"]
        var viewers: [LecternConnection] = []
        for w in words {
            let v = try viewer(h, key: key)
            _ = try v.request(.pollAnswer(poll: 0, .text(w)))
            viewers.append(v)
        }
        XCTAssertEqual(try a.state().audience?.poll?.texts, words)
        _ = try a.request(.pollShow(PollShow(poll: 0, results: true, answer: false, picks: [0, 1])))
        XCTAssertEqual(try viewers[2].waitForState { $0.audience?.poll?.showResults == true }.audience?.poll?.texts, ["insightful", "long"])
        let expected = try h.expectedFrame(pdf: try pdfPath(h, content), page: 1).clone()
        WallCardDrawing.draw(WallCard(title: "One word for today?", lines: ["insightful", "long"]), into: expected)
        var wall = expected
        try eventually("the card is on the wall") {
            wall = try PNG.decode(a.screenshot())
            return PixelCompare.differingPixels(wall, expected) == 0
        }
        XCTAssertEqual(PixelCompare.differingPixels(wall, expected), 0, "the page with the picked answers over it")
        let withAll = try h.expectedFrame(pdf: try pdfPath(h, content), page: 1).clone()
        WallCardDrawing.draw(WallCard(title: "One word for today?", lines: words), into: withAll)
        XCTAssertGreaterThan(PixelCompare.differingPixels(wall, withAll), 100, "the unpicked answer is not on the wall")
    }

    /// Viewers see the ink: the state's ink object and the strokes of the live page, read-only.
    func testViewersGetTheInkOfTheLivePageButCantDraw() throws {
        let h = try ServiceHarness(floor: .open)
        let (a, content) = try presenting(h)
        let v = try viewer(h)
        try a.draw([InkPoint(x: 1000, y: 1000), InkPoint(x: 5000, y: 5000), InkPoint(x: 9000, y: 2000)])
        XCTAssertEqual(try v.waitForState { ($0.ink?.strokes ?? 0) > 0 }.ink?.strokes, 1)
        XCTAssertEqual(try v.inkStrokes().count, 1)
        XCTAssertServerError(.viewerNotAllowed, try v.inkStrokes(content: content, page: 2), "locked: the live page only")
        XCTAssertServerError(.viewerNotAllowed, try v.draw([InkPoint(x: 2000, y: 2000), InkPoint(x: 3000, y: 3000)]))
        XCTAssertServerError(.viewerNotAllowed, try v.inkClear())
    }

    func pdfPath(_ h: ServiceHarness, _ content: ContentID) throws -> String {
        h.dir + "/data/content/" + content.hex
    }
}
