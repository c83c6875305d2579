import Foundation
import LecternClient
import LecternCore
import LecternProtocol
import LecternTestSupport
import XCTest

/// The audience page in a real Chromium (issue 17): a viewer's phone follows a turn, answers
/// a poll, and sends a question the presenter's laptop view shows.
final class AudiencePageTests: XCTestCase {
    func testAViewerPhoneFollowsATurnAnswersAPollAndAsksAQuestion() throws {
        let h = try ServiceHarness.web(floor: .open)
        guard let driver = h.driver else { return XCTFail("no browsers") }
        // The presenter: on a laptop in the web remote, driving over the protocol.
        let a = try h.connect()
        try a.register(name: "Ana", role: .presenter, passcode: ServiceHarness.presenterPass)
        _ = try a.requestFloor()
        let pdf = try Fixtures.numberedDeck(count: 4, in: Fixtures.tempDir("audience-web"))
        let id = try a.upload(path: pdf).content
        try a.present(id, page: 1)
        let laptop = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(laptop, name: "Ana's laptop")

        // The phone: the QR code's address, then "Follow along".
        let phone = try driver.session(width: 390, height: 844)
        try phone.open(h.url)
        try phone.click("#audience-link")
        _ = try phone.wait(for: "#join-form")
        try phone.type(try phone.wait(for: "#v-passcode"), ServiceHarness.presenterPass)
        try phone.click("#v-join")
        _ = try phone.wait(for: "#audience-view:not([hidden])", timeout: 30)
        try phone.poll("the slide of page 1") { try phone.execute("return document.getElementById('slide').dataset.page") as? String == "1" }
        XCTAssertEqual(try a.state().audience?.viewers, 1)

        // A turn on the wall: the phone follows.
        try a.control(.next)
        try phone.poll("the slide of page 2") { try phone.execute("return document.getElementById('slide').dataset.page") as? String == "2" }
        let natural = try phone.execute("const i = document.getElementById('slide'); return [i.naturalWidth, i.clientWidth]") as? [Int] ?? []
        XCTAssertGreaterThanOrEqual(natural.first ?? 0, natural.last ?? 1, "sharp: the image at least as wide as it is shown")
        try shoot(phone, "audience-follow", width: 390, height: 844)

        // A poll: the phone answers B.
        _ = try a.request(.pollAsk(PollDraft(question: "Which colour?", kind: .choice, answers: ["Red", "Green", "Blue"], correct: 1)))
        try phone.click("#poll button[data-answer='B']")
        try phone.poll("the answer counted") { try a.state().audience?.poll?.counts == [0, 1, 0] }
        try shoot(phone, "audience-poll", width: 390, height: 844)

        // A question: the presenter's view has it.
        try phone.type(try phone.wait(for: "#ask-text"), "Will the slides be shared?")
        try phone.click("#ask-send")
        try phone.poll("the question reached the room") { try a.state().audience?.questions.first?.text == "Will the slides be shared?" }
        try laptop.poll("the presenter's view shows the question") {
            (try laptop.execute("return document.body.innerText") as? String ?? "").contains("Will the slides be shared?")
        }
        try shoot(laptop, "audience-presenter", width: 1366, height: 768)
        try phone.close()
    }

    /// The deck's download (§24.5): only while allowed, only with the room's token (which
    /// only registered devices get in their state), the bytes of the deck on the wall;
    /// revoked, the same link answers 403.
    func testTheDeckDownloadIsAllowedRevokedAndEnforcedOverHTTP() throws {
        let h = try ServiceHarness.web(floor: .open, browsers: false)
        let a = try h.connect()
        try a.register(name: "Ana", role: .presenter, passcode: ServiceHarness.presenterPass)
        _ = try a.requestFloor()
        let pdf = try Fixtures.numberedDeck(count: 3, in: Fixtures.tempDir("download"), name: "Quarterly review.pdf")
        try a.present(try a.upload(path: pdf).content, page: 1)
        let v = try h.connect()
        try v.register(name: "", role: .viewer, passcode: ServiceHarness.presenterPass)
        XCTAssertNil(try v.state().audience?.downloadURL, "not offered before it is allowed")
        XCTAssertEqual(try HTTP.send("GET", h.url + "download/00000000000000000000000000000000").status, 403)

        _ = try a.request(.audienceSet(.allowDownload))
        let url = try XCTUnwrap(try v.waitForState { $0.audience?.downloadURL != nil }.audience?.downloadURL)
        let got = try HTTP.send("GET", h.url + url.dropFirst())
        XCTAssertEqual(got.status, 200)
        XCTAssertEqual(got.headers["content-type"], "application/pdf")
        XCTAssertTrue(got.headers["content-disposition"]?.contains("Quarterly review.pdf") == true)
        XCTAssertEqual(got.body, try Data(contentsOf: URL(fileURLWithPath: pdf)), "the deck as presented, byte for byte")
        XCTAssertEqual(try HTTP.send("GET", h.url + "download/" + String(repeating: "0", count: 32)).status, 403, "a guessed token gets nothing")
        XCTAssertThrowsError(try v.request(.audienceSet(.allowDownload))) {
            XCTAssertEqual(($0 as? LecternConnection.ClientError)?.lecternError?.code, .viewerNotAllowed)
        }

        _ = try a.request(.audienceSet(.revokeDownload))
        XCTAssertNil(try v.waitForState { $0.audience?.downloadURL == nil }.audience?.downloadURL)
        XCTAssertEqual(try HTTP.send("GET", h.url + url.dropFirst()).status, 403, "revoked: the old link is dead")
    }
}
