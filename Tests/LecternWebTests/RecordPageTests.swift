import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternService
import LecternTestSupport
import XCTest

/// The Meeting record card (Web/record-view.js, docs/protocol.md §26) in real Chromium
/// against the real service: the moderator's page shows it and its button saves the PDF;
/// a presenter's page doesn't show it unless the admin allows.
final class RecordPageTests: XCTestCase {
    func testTheModeratorDownloadsTheRecordAndAPresenterDoesNotSeeIt() throws {
        let h = try ServiceHarness.web(floor: .open)
        let deck = try Fixtures.numberedDeck(count: 3, in: h.dir)
        let alice = try h.presenter("Alice")
        _ = try alice.requestFloor()
        let content = try alice.upload(path: deck).content
        try alice.present(content)
        try alice.control(.next)

        let mod = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(mod, name: "Chair", role: .moderator)
        try mod.poll("the record card") { try mod.displayed(XCTUnwrap(mod.find("#record-card"))) }
        try mod.poll("its page count") { try mod.text("#record-summary").hasPrefix("2 pages shown so far") }
        // The PDF the page would save: caught where the page hands it to the browser.
        try mod.execute(
            """
            window.__record = null;
            const make = URL.createObjectURL.bind(URL);
            URL.createObjectURL = (b) => { window.__record = b; return make(b); };
            HTMLAnchorElement.prototype.click = function () { window.__recordName = this.download; };
            """)
        try mod.click("#record-download")
        try mod.poll("saved", timeout: 60) { try mod.text("#record-progress") == "Saved." }
        try shoot(mod, "record", width: 1366, height: 768)
        let got =
            try mod.executeAsync(
                """
                const done = arguments[arguments.length - 1];
                window.__record.arrayBuffer().then((b) => done([window.__recordName, b.byteLength,
                  String.fromCharCode(...new Uint8Array(b.slice(0, 5)))]));
                """) as? [Any] ?? []
        XCTAssertEqual(got.first as? String, "Room 4.12 record.pdf")
        XCTAssertGreaterThan(got.dropFirst().first as? Int ?? 0, 1000)
        XCTAssertEqual(got.last as? String, "%PDF-")

        let p = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(p, name: "Ben")
        try p.poll("the presenter's page drawn") { try p.find("#record-card") != nil }
        XCTAssertFalse(try p.displayed(XCTUnwrap(p.find("#record-card"))), "presenters don't see it without record_presenters")
    }
}
