import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternTestSupport
import XCTest

/// The audience page follows any pane of the wall (docs/protocol.md §24.8), in a real
/// Chromium: with a split on the wall the phone shows the map of the panes; a tap on pane 1
/// follows Ben's page (its image over HTTP, its page number) and his turns; a tap on the
/// main pane goes back to it.
final class ViewerPanesPageTests: XCTestCase {
    func testAViewerTapsAPaneToFollowItAndTheMainPaneToComeBack() throws {
        let h = try ServiceHarness.web(floor: .open)
        guard let driver = h.driver else { return XCTFail("no browsers") }
        let ana = try h.presenter("Ana")
        _ = try ana.requestFloor()
        let dir = Fixtures.tempDir("viewer-panes")
        let a = try ana.upload(path: try Fixtures.numberedDeck(count: 3, in: dir, name: "ana.pdf")).content
        try ana.present(a, page: 1)
        let ben = try h.presenter("Ben")
        let b = try ben.upload(path: try Fixtures.numberedDeck(count: 5, in: dir, name: "ben.pdf")).content
        let mod = try h.moderator()
        XCTAssertEqual(try mod.request(.layoutSet(.split)), .ok)
        XCTAssertEqual(try mod.request(.paneSet(PaneRequest(pane: 1, .assign(ben.deviceID)))), .ok)
        try ben.present(b, page: 4)

        let phone = try driver.session(width: 390, height: 844)
        try phone.open(h.url + "viewer.html")
        try phone.type(try phone.wait(for: "#v-passcode"), ServiceHarness.presenterPass)
        try phone.click("#v-join")
        _ = try phone.wait(for: "#audience-view:not([hidden])", timeout: 30)
        func shown() throws -> String {
            try phone.execute("const i = document.getElementById('slide'); return i.complete && i.naturalWidth > 0 ? i.currentSrc : ''") as? String ?? ""
        }
        try phone.poll("the main pane's page, as before layouts") { try shown().contains("/page/\(a.hex)/1/") }
        try phone.poll("the map of two panes") { try phone.execute("return document.querySelectorAll('#viewer-wall .wall-pane').length") as? Int == 2 }
        XCTAssertEqual(try phone.execute("return document.querySelector('#viewer-wall .wall-pane[data-pane=\"0\"]').getAttribute('aria-pressed')") as? String, "true")

        try phone.click("#viewer-wall .wall-pane[data-pane='1']")
        try phone.poll("Ben's page in pane 1") { try shown().contains("/page/\(b.hex)/4/") }
        let note = try phone.text("#slide-note")
        XCTAssertTrue(note.hasPrefix("Pane 1: Slide 4 of 5"), note)
        XCTAssertEqual(try phone.execute("return document.querySelector('#viewer-wall .wall-pane[data-pane=\"1\"]').getAttribute('aria-pressed')") as? String, "true")
        try ben.control(.next)
        try phone.poll("Ben's turn, followed") { try shown().contains("/page/\(b.hex)/5/") }
        try ana.control(.next)   // the main pane moves on: the phone stays on pane 1
        _ = try mod.waitForState { $0.screen.page == 2 }
        XCTAssertTrue(try shown().contains("/page/\(b.hex)/5/"))

        try phone.click("#viewer-wall .wall-pane[data-pane='0']")
        try phone.poll("back to the main pane, at its live page") { try shown().contains("/page/\(a.hex)/2/") }
        _ = try TestOutput.write(try phone.screenshot(), "viewer-follows-a-pane-phone.png")
    }
}
