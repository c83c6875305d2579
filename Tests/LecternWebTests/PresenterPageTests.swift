import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// The presenter's page in a real headless Chromium against a real service: uploading,
/// presenting and turning pages (buttons, keys, swipes), clips, releasing the floor.
final class PresenterPageTests: XCTestCase {
    /// Log in, upload a PDF, present it, press next (a click and keys): the service's output
    /// shows the pages, pixel for pixel.
    func testAPresenterUploadsPresentsAndTurnsPages() throws {
        let h = try ServiceHarness.web(floor: .open)
        let pdf = try Fixtures.numberedDeck(count: 3, in: h.dir, name: "quarterly review.pdf")
        let b = try h.browser(width: 1366, height: 768)
        try shoot(b, "login", width: 1366, height: 768)
        try h.joinAndWait(b, name: "Ana's laptop")
        // The live picture is the output scaled to the box (in device pixels), not 1920 wide.
        try b.poll("the preview of the idle screen, at the box's size") {
            try b.execute(
                """
                const i = document.getElementById('preview-img'), w = window.Lectern.app.previewWidth;
                return !i.hidden && i.complete && w > 0 && w < 1920 && Math.abs(i.naturalWidth - w) <= 2
                  && Math.abs(i.naturalWidth / i.naturalHeight - 16 / 9) < 0.01
                """) as? Bool == true
        }

        try b.click("#floor-request")
        try b.poll("the floor") { try b.text("#floor-status") == "You have the floor." }
        try b.type(try XCTUnwrap(b.find("#file-input")), pdf)
        let present = try b.wait(for: "#file-list button[data-action=present]", timeout: 30)
        XCTAssertTrue(try b.text("#file-list").contains("quarterly review.pdf"))
        XCTAssertTrue(try b.text("#file-list").contains("3 pages"))
        XCTAssertEqual(try b.execute("return document.getElementById('upload-bar').value") as? Double, 1)
        try b.click(present)
        try h.assertOutputShows(pdf: pdf, page: 1)
        try b.poll("page 1 in the page") { try b.text("#page-label") == "1 / 3" }
        XCTAssertEqual(try b.text("#next-label"), "Next: page 2")
        // The next slide as the output will show it, under the live picture.
        try h.assertNextSlide(b, pdf: pdf, page: 2)
        XCTAssertEqual(try b.text("#next-page"), "Page 2 of 3")

        // Someone else in the room sees the screen, not what comes next.
        let viewer = try h.browser(width: 360, height: 740)
        try h.joinAndWait(viewer, name: "Eve's phone")
        try viewer.poll("the viewer's preview request answered") {
            try viewer.execute("const n = window.Lectern.app.next; return n.key !== '' && n.done === n.key") as? Bool == true
        }
        XCTAssertFalse(try viewer.displayed(XCTUnwrap(viewer.find("#upnext"))), "a viewer sees the next slide")
        XCTAssertEqual(try viewer.text("#next-label"), "Next: page 2")
        try viewer.close()

        try b.click("#next")
        try h.assertOutputShows(pdf: pdf, page: 2)
        try b.poll("page 2 in the page") { try b.text("#page-label") == "2 / 3" }
        try h.assertNextSlide(b, pdf: pdf, page: 3)
        try shoot(b, "presenter-next", width: 1366, height: 768)

        // The keys a clicker sends.
        try b.execute("document.activeElement && document.activeElement.blur()")
        try b.press([WebSession.arrowLeft])
        try h.assertOutputShows(pdf: pdf, page: 1)
        try b.press([WebSession.pageDown])
        try h.assertOutputShows(pdf: pdf, page: 2)
        try b.poll("page 2 in the page") { try b.text("#page-label") == "2 / 3" }

        // The preview is the output's frame, refreshed.
        try b.poll("the preview of page 2") {
            try b.execute("return window.Lectern.app.previewURL === document.getElementById('preview-img').src") as? Bool == true
        }
        try b.press(["b"])
        try b.poll("blank") { try h.snapshot().screen.blank == .black }
        try b.poll("the badge") { try b.text("#blank-badge") == "Blanked black" }
        try b.press(["b"])
        try b.poll("unblank") { try h.snapshot().screen.blank == .none }
        try h.assertOutputShows(pdf: pdf, page: 2)

        // Jump to a page.
        let goto = try b.wait(for: "#goto-page")
        try b.type(goto, "3")
        try b.click("#goto-form button")
        try h.assertOutputShows(pdf: pdf, page: 3)
        try b.poll("no next slide after the last") { try b.execute("return document.getElementById('upnext').hidden") as? Bool == true }
        XCTAssertEqual(try b.text("#next-label"), "Last page")
        try b.poll("the preview to settle") {
            try b.execute("return window.Lectern.app.previewURL === document.getElementById('preview-img').src && !window.Lectern.app.previewBusy") as? Bool == true
        }
        try shoot(b, "presenter", width: 1366, height: 768)
    }

    /// A real clip from the browser: uploaded with the progress bar, played on the output,
    /// the position bar moving, pause, seek by the bar, resume, stop. Then a deck turned by
    /// swiping the picture, and the floor released.
    func testClipsSwipeAndReleaseFromTheBrowser() throws {
        let h = try ServiceHarness.web(floor: .open)
        // Long enough to be still playing at every step below on a slow machine (it is stopped
        // by hand at the end).
        let clip = try Fixtures.clip(in: h.dir, color: "red", seconds: 30, name: "intro.mp4")
        let pdf = try Fixtures.numberedDeck(count: 3, in: h.dir)
        let b = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(b, name: "Cleo")
        try b.click("#floor-request")
        try b.poll("the floor") { try b.text("#floor-status") == "You have the floor." }

        try b.type(try XCTUnwrap(b.find("#file-input")), clip)
        let play = try b.wait(for: "#file-list button[data-action=play]", timeout: 30)
        let list = try b.text("#file-list")
        XCTAssertTrue(list.contains("clip, 0:30"), "the clip's duration in the list: \(list)")
        XCTAssertEqual(try b.execute("return document.getElementById('upload-bar').value") as? Double, 1)
        XCTAssertTrue(try b.displayed(XCTUnwrap(b.find("#clip-card"))))
        try b.click(play)
        try b.poll("the clip playing on the service") { try h.snapshot().screen.clip?.state == .playing }
        // On the output: the red clip in the 4:3 area, black bars beside it.
        try eventually("red on the output", timeout: 20) {
            let f = h.service.stage.screenshot(), c = f.pixel(x: 960, y: 540)
            return c.r > 200 && c.g < 70 && c.b < 70 && f.pixel(x: 100, y: 540) == .black
        }
        // The position bar moves with the clip and knows its length.
        try b.poll("the position bar moving") {
            try b.execute("const r = document.getElementById('clip-position'); return Number(r.max) === 30000 && Number(r.value) > 300") as? Bool == true
        }
        XCTAssertEqual(try b.text("#clip-state"), "Playing")

        XCTAssertEqual(try b.text("#clip-toggle"), "Pause")
        try b.click("#clip-toggle")
        try b.poll("paused on the service") { try h.snapshot().screen.clip?.state == .paused }
        try b.poll("paused in the page") { try b.text("#clip-state") == "Paused" && b.text("#clip-toggle") == "Play" }
        try shoot(b, "clip-paused", width: 1366, height: 768)

        // Seek by the bar: what a finger lifting off the slider does.
        try b.execute("const r = document.getElementById('clip-position'); r.value = '4000'; r.dispatchEvent(new Event('change'))")
        try b.poll("the service at 4 s") { (try h.snapshot().screen.clip?.positionMs ?? 0) >= 3900 }
        // The page hears of it with the next state, a moment after the service is there.
        try b.poll("the page at 4 s") { try b.execute("return document.getElementById('clip-time').textContent") as? String == "0:04 / 0:30" }

        try b.click("#clip-toggle")
        try b.poll("playing again") { try h.snapshot().screen.clip?.state == .playing }
        // Loop, mid-play: the service loops the clip from now on; the box stays ticked.
        XCTAssertEqual(try h.snapshot().screen.clip?.loop, false)
        try b.click("label:has(#clip-loop)")
        try b.poll("looping on the service") { try h.snapshot().screen.clip?.loop == true }
        try b.poll("the box ticked") { try b.execute("return document.getElementById('clip-loop').checked") as? Bool == true }
        try b.click("#clip-stop")
        try b.poll("the clip gone") { try h.snapshot().screen.clip == nil }
        try b.poll("the page says so") { try b.text("#clip-state") == "No clip on screen" }
        XCTAssertEqual(try b.execute("return document.getElementById('clip-toggle').disabled") as? Bool, true, "no clip: its controls are off")

        // Swipe: a finger moving left on the picture is next, right is previous.
        try b.type(try XCTUnwrap(b.find("#file-input")), pdf)
        try b.click("#file-list button[data-action=present]", timeout: 30)
        try h.assertOutputShows(pdf: pdf, page: 1)
        func swipe(_ dx: Double) throws {
            try b.execute(
                """
                const el = document.getElementById('preview'), r = el.getBoundingClientRect();
                const x = r.left + r.width / 2, y = r.top + r.height / 2;
                const t = (cx) => new Touch({ identifier: 1, target: el, clientX: cx, clientY: y });
                el.dispatchEvent(new TouchEvent('touchstart', { touches: [t(x)], changedTouches: [t(x)], bubbles: true }));
                el.dispatchEvent(new TouchEvent('touchend', { touches: [], changedTouches: [t(x + arguments[0])], bubbles: true }));
                """, [dx])
        }
        try swipe(-150)
        try h.assertOutputShows(pdf: pdf, page: 2)
        try swipe(150)
        try h.assertOutputShows(pdf: pdf, page: 1)
        try swipe(-20)   // a small movement is a tap, not a turn
        // A blank sent after it over the same WebSocket: once it is on, a turn from the
        // tap would have been carried out before it.
        try b.click("#blank-black")
        try b.poll("blank") { try h.snapshot().screen.blank == .black }
        XCTAssertEqual(try h.snapshot().screen.page, 1, "a 20-px movement turned the page")
        try b.click("#blank-black")
        try b.poll("unblank") { try h.snapshot().screen.blank == .none }
        try swipe(-150)
        try h.assertOutputShows(pdf: pdf, page: 2)

        // A clip started from a page ends back on that page (and its controls go off).
        try b.click("#file-list button[data-action=play]")
        try b.poll("the clip playing again") { try h.snapshot().screen.clip?.state == .playing }
        try b.click("#clip-stop")
        try h.assertOutputShows(pdf: pdf, page: 2)
        try b.poll("the page label back on the deck") { try b.text("#page-label") == "2 / 3" }

        // Release the floor.
        try b.click("#floor-release")
        try b.poll("released") { try h.snapshot().floor.holder == nil }
        try b.poll("the page says so") { try b.text("#floor-status") == "Nobody has the floor." }
    }
}
