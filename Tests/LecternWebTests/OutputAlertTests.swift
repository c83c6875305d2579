import Foundation
import LecternClient
import LecternModel
import LecternDisplay
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// Issue 15, must 7, in real Chromium: the projector's cable is pulled (the virtual
/// display's, with the uevent the kernel would send played by the test), the presenter's
/// and the moderator's pages say so at once, and when it is back the current slide is on
/// the output again without anyone acting. (The same on the virtual board's real KMS
/// connector: VirtualBoardTests.testUnpluggingTheDisplay….)
final class OutputAlertTests: XCTestCase {
    func testThePresenterAndModeratorSeeTheProjectorIsDisconnectedAndTheSlideComesBack() throws {
        let h = try ServiceHarness.web(floor: .open)
        let pdf = try Fixtures.numberedDeck(count: 3, in: h.dir)
        let ana = try h.presenter("Ana")
        _ = try ana.requestFloor()
        let id = try ana.upload(path: pdf).content
        try ana.present(id)
        try h.assertOutputShows(pdf: pdf, page: 1)

        let presenter = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(presenter, name: "Bo's laptop")
        let moderator = try h.browser(width: 390, height: 844)
        try h.joinAndWait(moderator, name: "Mod's phone", role: .moderator)
        for b in [presenter, moderator] {
            XCTAssertFalse(try b.execute("const e = document.getElementById('output-alert'); return !!e && !e.hidden") as? Bool ?? true)
        }
        XCTAssertTrue(try h.snapshot().output.connected)

        let display = try XCTUnwrap(h.service.output as? VirtualDisplay)
        display.setConnected(false)
        h.service.displayChanged()
        for b in [presenter, moderator] {
            try b.poll("the alert") {
                try b.execute("const e = document.getElementById('output-alert'); return !!e && !e.hidden && e.textContent") as? String
                    == "The projector is disconnected — the slide comes back on it when it is plugged in again."
            }
        }
        try shoot(moderator, "output-lost-phone", width: 390, height: 844)
        let s = try h.snapshot()
        XCTAssertFalse(s.output.connected)
        XCTAssertEqual(s.output.losses, 1)
        XCTAssertEqual(s.output.mode, "1920x1080@60")

        // Page 2 while the wall is dark: the output keeps page 1 (presents are dropped)…
        try ana.control(.next)
        try h.assertStateReaches(page: 2)
        XCTAssertEqual(PixelCompare.differingPixels(h.service.onScreen, try h.expectedFrame(pdf: pdf, page: 1)), 0)
        // …and shows page 2 once the cable is back, with nobody doing anything.
        display.setConnected(true)
        h.service.displayChanged()
        try h.assertOutputShows(pdf: pdf, page: 2)
        for b in [presenter, moderator] {
            try b.poll("the alert gone") {
                try b.execute("const e = document.getElementById('output-alert'); return !!e && e.hidden") as? Bool == true
            }
        }
        XCTAssertTrue(try h.snapshot().output.connected)
    }
}

extension ServiceHarness {
    func assertStateReaches(page: Int) throws {
        try eventually("the room's screen on page \(page)") { try snapshot().screen.page == page }
    }
}
