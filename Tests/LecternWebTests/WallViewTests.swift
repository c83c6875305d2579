import Foundation
import LecternClient
import LecternModel
import LecternRender
import LecternTestSupport
import XCTest

/// `/wall` in a real Chromium: the moderator's live view of the wall is the exact frame on
/// the output (the idle screen, then a page), read back pixel by pixel from the page.
final class WallViewTests: XCTestCase {

    func testTheWallIsTheExactFrameAndFollowsIt() throws {
        let h = try ServiceHarness.web()
        let s = try XCTUnwrap(h.driver).session(width: 1280, height: 800)
        try s.open(h.url + "wall")
        try s.type(try s.wait(for: "#wall-passcode"), ServiceHarness.moderatorPass)
        try s.click("#wall-join")
        try s.poll("the wall shows the idle screen, exactly") {
            guard let f = try s.wallFrame() else { return false }
            return f.width == 1920 && f.height == 1080 && PixelCompare.differingPixels(f, h.service.onScreen) == 0
        }
        // A page goes up: the wall follows.
        let alice = try h.presenter("Alice")
        let pdf = try Fixtures.numberedDeck(count: 2, in: Fixtures.tempDir("wall"))
        let stored = try alice.upload(path: pdf)
        _ = try alice.requestFloor()
        try alice.present(stored.content)
        let page = try h.expectedFrame(pdf: pdf, page: 1)
        try s.poll("the wall shows page 1, exactly") {
            guard let f = try s.wallFrame() else { return false }
            return PixelCompare.differingPixels(f, page) == 0
        }
        XCTAssertEqual(try s.execute("return document.getElementById('wall-login').offsetHeight") as? Int, 0, "the form is out of the way")
        let out = Repository.root + "/.build/test-output"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try s.screenshot().write(to: URL(fileURLWithPath: out + "/wall-view.png"))
    }

    func testAWrongPasscodeShowsNothing() throws {
        let h = try ServiceHarness.web()
        let s = try XCTUnwrap(h.driver).session(width: 1280, height: 800)
        try s.open(h.url + "wall")
        try s.type(try s.wait(for: "#wall-passcode"), "not-the-passcode")
        try s.click("#wall-join")
        try s.poll("an error in words") { !(try s.text("#wall-error")).isEmpty }
        XCTAssertNil(try s.wallFrame())
    }
}
