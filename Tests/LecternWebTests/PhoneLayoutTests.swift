import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// The page's layout in a real headless Chromium, at phone and laptop size.
final class PhoneLayoutTests: XCTestCase {
    /// 360 px wide: nothing scrolls sideways, on the form, the presenter's and the
    /// moderator's page, with long names. Screenshots at phone and laptop size for people.
    func testThePhoneLayoutHasNoHorizontalScroll() throws {
        let h = try ServiceHarness.web(floor: .moderated)
        let pdf = try Fixtures.numberedDeck(count: 12, in: h.dir, name: "A rather long file name for the quarterly planning review 2025.pdf")
        let phone = try h.browser(width: 360, height: 740)
        XCTAssertEqual(try phone.execute("return window.innerWidth") as? Int, 360)
        try assertNoHorizontalScroll(phone, "the join form")
        try shoot(phone, "login", width: 360, height: 740)

        try h.joinAndWait(phone, name: "Maximilian's very long device name (iPhone)", role: .moderator)
        let presenter = try h.connect()
        try presenter.register(name: "Ana", role: .presenter, passcode: ServiceHarness.presenterPass)
        _ = try presenter.requestFloor()
        try phone.type(try XCTUnwrap(phone.find("#file-input")), pdf)
        try phone.click("#file-list button[data-action=present]", timeout: 30)
        try h.assertOutputShows(pdf: pdf, page: 1)
        try phone.click("#next")
        try h.assertOutputShows(pdf: pdf, page: 2)
        try phone.poll("the queue") { try phone.text("#queue-list").contains("Ana") }
        try h.assertNextSlide(phone, pdf: pdf, page: 3)
        try phone.poll("the preview to settle") {
            try phone.execute("return window.Lectern.app.previewURL === document.getElementById('preview-img').src && !window.Lectern.app.previewBusy") as? Bool == true
        }
        try assertNoHorizontalScroll(phone, "the moderator's page")
        try shoot(phone, "moderator-presenting", width: 360, height: 740)

        // Touch targets: every button at least 44 px tall.
        let small =
            try phone.execute(
                """
                return Array.from(document.querySelectorAll('button')).filter((b) => b.offsetParent !== null)
                  .filter((b) => b.getBoundingClientRect().height < 44).map((b) => b.id || b.textContent);
                """) as? [String] ?? ["?"]
        XCTAssertEqual(small, [], "buttons smaller than 44 px")

        let laptop = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(laptop, name: "Ben", role: .presenter)
        try assertNoHorizontalScroll(laptop, "the presenter's page on a laptop")
        try laptop.poll("the preview") {
            try laptop.execute("return window.Lectern.app.previewURL === document.getElementById('preview-img').src && !window.Lectern.app.previewBusy") as? Bool == true
        }
        try shoot(laptop, "presenter-watching", width: 1366, height: 768)
        try laptop.setViewport(width: 360, height: 740)
        try assertNoHorizontalScroll(laptop, "the presenter's page at 360 px")
        try shoot(laptop, "presenter-watching", width: 360, height: 740)
    }
}
