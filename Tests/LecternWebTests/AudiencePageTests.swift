import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternTestSupport
import XCTest

/// The audience page in a real Chromium (issue 17): a viewer's phone follows a turn, answers
/// a poll, and sends a question the presenter's laptop view shows.
final class AudiencePageTests: XCTestCase {
    func testAViewerPhoneFollowsATurnAnswersAPollAndAsksAQuestion() throws {
        let h = try ServiceHarness.web(floor: .open)
        guard let driver = h.driver else { return XCTFail("no browsers") }
        // The presenter: on a laptop in the web remote, with the floor and her deck on the wall;
        // the moderator turns pages and watches over the protocol.
        let laptop = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(laptop, name: "Ana's laptop")
        try laptop.click("#floor-request")
        let pdf = try Fixtures.numberedDeck(count: 4, in: Fixtures.tempDir("audience-web"))
        try laptop.type(try XCTUnwrap(laptop.find("#file-input")), pdf)
        try laptop.click("#file-list button[data-action=present]", timeout: 30)
        let a = try h.moderator()
        let id = try XCTUnwrap(try a.waitForState { $0.screen.content != nil && $0.screen.page == 1 }.screen.content?.id)

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
        try phone.poll("page 2's image loaded over HTTP") {
            let src = try phone.execute("const i = document.getElementById('slide'); return i.complete && i.naturalWidth > 0 ? i.currentSrc : ''") as? String ?? ""
            return src.contains("/page/\(id.hex)/2/")
        }
        let natural = try phone.execute("const i = document.getElementById('slide'); return [i.naturalWidth, i.clientWidth]") as? [Int] ?? []
        XCTAssertGreaterThanOrEqual(natural.first ?? 0, natural.last ?? 1, "sharp: the image at least as wide as it is shown")
        XCTAssertEqual(try a.state().audience?.pageImage, "/page/\(id.hex)/2")

        // The presenter points: the phone draws the dot over its slide, where the wall has it.
        _ = a.point(x: 0.5, y: 0.5)
        try phone.poll("the pointer on the phone") {
            let at = try phone.execute("return document.getElementById('overlay').dataset.pointer || ''") as? String ?? ""
            let xy = at.split(separator: ",").compactMap { Double($0) }
            let size = try phone.execute("const i = document.getElementById('slide'); return [i.clientWidth, i.clientHeight]") as? [Double] ?? []
            return xy.count == 2 && size.count == 2 && abs(xy[0] - size[0] / 2) <= 2 && abs(xy[1] - size[1] / 2) <= 2
        }
        // Ink on the wall's page: the phone draws it over its slide, at the same place.
        _ = try a.draw((0...20).map { InkPoint(x: UInt16(10000 + $0 * 2000), y: 49152) }, width: .thick)
        try phone.poll("the stroke on the phone") {
            try phone.execute(
                """
                const c = document.getElementById('overlay'), i = document.getElementById('slide'), s = window.LecternViewer.state.ink.box;
                if (c.dataset.strokes !== '1' || !s) return false;
                const r = window.devicePixelRatio || 1, x = (s.x + 0.5 * s.width) * i.clientWidth * r, y = (s.y + 0.75 * s.height) * i.clientHeight * r;
                return c.getContext('2d').getImageData(Math.round(x), Math.round(y), 1, 1).data[3] > 200;
                """) as? Bool == true
        }
        try shoot(phone, "audience-follow", width: 390, height: 844)

        // A poll prepared in the presenter's view (one line each), asked with one tap: the phone answers B.
        try laptop.type(try laptop.wait(for: "#prepare-text"), "Which colour?\nRed\n*Green\nBlue")
        try laptop.click("#prepare-add")
        try laptop.poll("the prepared poll listed") { try a.state().audience?.prepared?.first?.correct == 1 }
        try laptop.click(try laptop.wait(for: "#prepared-list button[data-ask='0']"))
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
    func testTheDeckDownloadIsAllowedRevokedAndEnforcedOverHTTPS() throws {
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
