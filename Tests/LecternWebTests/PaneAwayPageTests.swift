import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternTestSupport
import XCTest

/// The moderator's map of the wall says when a pane's driver is away (docs/protocol.md
/// §9.6): its connection dropped, the pane waits for it for the grace period; back with its
/// token, it is its driver again and the map says so. In a real Chromium.
final class PaneAwayPageTests: XCTestCase {
    func testTheModeratorsMapSaysAPanesDriverIsAwayAndWhenItIsBack() throws {
        let h = try ServiceHarness.web(floor: .open)
        guard h.driver != nil else { return XCTFail("no browsers") }
        let ben = try h.presenter("Ben")
        let deck = try ben.upload(path: try Fixtures.numberedDeck(count: 3, in: Fixtures.tempDir("pane-away"), name: "ben.pdf")).content
        let mod = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(mod, name: "Chair", role: .moderator)
        let chair = try h.moderator()
        XCTAssertEqual(try chair.request(.layoutSet(.split)), .ok)
        XCTAssertEqual(try chair.request(.paneSet(PaneRequest(pane: 1, .assign(ben.deviceID)))), .ok)
        try ben.present(deck, page: 2)
        let driver = "#wall-map .wall-pane[data-pane='1'] .wall-pane-driver"
        try mod.poll("Ben drives pane 1") { try mod.text(driver) == "Ben" }
        let token = try XCTUnwrap(ben.registration?.resumeToken)
        ben.close()
        try mod.poll("the map says Ben is away") { try mod.text(driver).hasPrefix("Ben — away, back within ") }
        let said = try mod.text(driver)
        XCTAssertTrue(said.hasSuffix(" s or the pane is emptied"), said)
        let back = try h.connect()
        try back.register(name: "Ben", role: .presenter, passcode: ServiceHarness.presenterPass, resumeToken: token)
        XCTAssertEqual(back.registration?.resumed, true)
        try mod.poll("Ben is back") { try mod.text(driver) == "Ben" }
    }
}
