import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternTestSupport
import XCTest

/// Polls prepared with a deck (§24.3), over real sockets: prepared by the holder, carried
/// in the presenters' state for the deck on the wall (never the viewers'), asked by number,
/// kept across a restart and the end of a meeting, checked like asked ones.
final class AudiencePreparedPollsTests: XCTestCase {
    func presenting(_ h: ServiceHarness) throws -> (LecternConnection, ContentID) {
        let a = try h.presenter("Ana Presenter")
        _ = try a.requestFloor()
        let stored = try a.upload(path: try Fixtures.numberedDeck(count: 4, in: Fixtures.tempDir("prepared")))
        try a.present(stored.content, page: 1)
        return (a, stored.content)
    }

    func testPreparedPollsAreKeptWithTheDeckAskedByNumberAndSurviveARestart() throws {
        var h: ServiceHarness? = try ServiceHarness(floor: .open)
        let data = h!.dir + "/data"
        let (a, content) = try presenting(h!)
        let drafts = [
            PollDraft(question: "Which colour is the box?", kind: .choice, answers: ["Red", "Blue", "Green"], correct: 1),
            PollDraft(question: "Clear so far?", kind: .yesno),
            PollDraft(question: "One word for this talk?", kind: .text),
        ]
        _ = try a.request(.pollPrepare(content: content, drafts))
        XCTAssertEqual(try a.waitForState { $0.audience?.prepared?.count == 3 }.audience?.prepared?.map(\.question), drafts.map(\.question))
        let v = try h!.connect()
        try v.register(name: "", role: .viewer, passcode: ServiceHarness.presenterPass)
        XCTAssertNil(try v.state().audience?.prepared, "viewers don't see what is prepared")
        XCTAssertServerError(.viewerNotAllowed, try v.request(.pollPrepare(content: content, [])))
        XCTAssertServerError(.viewerNotAllowed, try v.request(.pollAskPrepared(content: nil, index: 0)))

        // Checked as asked ones are; bounded.
        XCTAssertServerError(.badPoll, try a.request(.pollPrepare(content: content, [PollDraft(question: "Only one?", kind: .choice, answers: ["A"])])))
        let tooMany = Array(repeating: drafts[1], count: AudienceLimits.maxPreparedPerDeck + 1)
        XCTAssertServerError(.tooMany, try a.request(.pollPrepare(content: content, tooMany)))
        XCTAssertServerError(.noSuchPoll, try a.request(.pollAskPrepared(content: nil, index: 3)))
        XCTAssertEqual(try a.state().audience?.prepared?.count, 3, "a refused list changes nothing")

        // One tap: the second prepared poll is asked; viewers answer it.
        _ = try a.request(.pollAskPrepared(content: nil, index: 1))
        XCTAssertEqual(try v.waitForState { $0.audience?.poll != nil }.audience?.poll?.question, "Clear so far?")
        _ = try v.request(.pollAnswer(poll: 0, .choice(0)))
        _ = try a.request(.pollAskPrepared(content: content, index: 0))
        XCTAssertEqual(try a.state().audience?.poll?.correct, 1)

        // A restart keeps them; the end of the meeting clears the polls asked, not the prepared ones.
        a.close()
        v.close()
        h = nil
        // Uploads kept for the day (§27): the deck, and its prepared polls, outlive the meeting.
        h = try ServiceHarness(floor: .open) {
            $0.dataDir = data; $0.uploadsKept = .day
        }
        let m = try h!.moderator()
        XCTAssertEqual(try m.state().audience?.prepared?.map(\.question), drafts.map(\.question), "kept across a restart")
        _ = try m.request(.pollPrepare(content: content, Array(drafts.prefix(1))))
        XCTAssertEqual(try m.waitForState { $0.audience?.prepared?.count == 1 }.audience?.prepared?.first?.answers, ["Red", "Blue", "Green"])
        _ = try m.request(.audienceSet(.endMeeting))
        let next = try h!.moderator()
        XCTAssertNil(try next.state().audience?.poll)
        let saved = try String(contentsOfFile: data + "/state.json", encoding: .utf8)
        XCTAssertTrue(saved.contains("Which colour is the box?"), "deck material outlives the meeting")
        XCTAssertFalse(saved.contains("Clear so far?"), "the poll asked is gone")
    }
}
