import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// page-preview (docs/protocol.md §6.9): a page of an upload as the output would show it,
/// small, without showing it — the web remote's "next slide".
final class PagePreviewOverTCPTests: XCTestCase {
    func testAPreviewIsThePipelinesPageAtTheAskedSizeAndLeavesTheScreenAlone() throws {
        let h = try ServiceHarness(floor: .open)
        let a = try h.presenter("A")
        // 4:3 pages with numbered quadrants: on a 16:9 output they have bars, and so do previews.
        let pdf = try Fixtures.numberedDeck(count: 3, in: Fixtures.tempDir("preview"))
        let stored = try a.upload(path: pdf)
        let idle = try PNG.decode(a.screenshot())

        // No floor needed: a presenter looks at their own deck before showing it.
        let small = try PNG.decode(a.pagePreview(stored.content, page: 2, maxWidth: 480))
        XCTAssertEqual([small.width, small.height], [480, 270], "the output's aspect, bounded by the width")
        XCTAssertEqual(PixelCompare.differingPixels(small, try h.expectedFrame(pdf: pdf, page: 2, width: 480, height: 270)), 0)
        XCTAssertNotEqual(
            PixelCompare.differingPixels(small, try h.expectedFrame(pdf: pdf, page: 3, width: 480, height: 270)), 0,
            "page 2, not another page")

        let byHeight = try PNG.decode(a.pagePreview(stored.content, page: 3, maxWidth: 480, maxHeight: 200))
        XCTAssertEqual([byHeight.width, byHeight.height], [356, 200])
        XCTAssertEqual(PixelCompare.differingPixels(byHeight, try h.expectedFrame(pdf: pdf, page: 3, width: 356, height: 200)), 0)

        // 0 = no limit: the output's size, the very frame the output would show.
        let full = try PNG.decode(a.pagePreview(stored.content, page: 0, maxWidth: 0, maxHeight: 0))
        XCTAssertEqual(PixelCompare.differingPixels(full, try h.expectedFrame(pdf: pdf, page: 1)), 0, "page 0 means 1")
        let huge = try PNG.decode(a.pagePreview(stored.content, page: 1, maxWidth: 60_000, maxHeight: 60_000))
        XCTAssertEqual([huge.width, huge.height], [1920, 1080], "never larger than the output")

        // The screen did not move.
        XCTAssertNil(try a.state().screen.content)
        XCTAssertEqual(PixelCompare.differingPixels(try PNG.decode(a.screenshot()), idle), 0)

        // While a page is up, the next one is previewed and the output keeps its page.
        _ = try a.requestFloor()
        try a.present(stored.content, page: 1)
        let next = try PNG.decode(a.pagePreview(stored.content, page: 2, maxWidth: 320))
        XCTAssertEqual(PixelCompare.differingPixels(next, try h.expectedFrame(pdf: pdf, page: 2, width: 320, height: 180)), 0)
        XCTAssertEqual(PixelCompare.differingPixels(try PNG.decode(a.screenshot()), try h.expectedFrame(pdf: pdf, page: 1)), 0)
    }

    /// screenshot-request with a size: the output's frame, scaled (the web remote's live
    /// picture on a phone); without one, the frame exactly, as before.
    func testASmallScreenshotIsTheOutputScaledDown() throws {
        let h = try ServiceHarness(floor: .open)
        let a = try h.presenter("A")
        _ = try a.requestFloor()
        let pdf = try Fixtures.numberedDeck(count: 3, in: Fixtures.tempDir("small-shot"))
        try a.present(try a.upload(path: pdf).content, page: 2)
        let full = try PNG.decode(a.screenshot())
        XCTAssertEqual(PixelCompare.differingPixels(full, try h.expectedFrame(pdf: pdf, page: 2)), 0, "no size: exactly the frame")

        let small = try PNG.decode(a.screenshot(maxWidth: 480))
        XCTAssertEqual([small.width, small.height], [480, 270])
        XCTAssertEqual(PixelCompare.differingPixels(small, full.scaled(width: 480, height: 270)), 0, "the output's frame, scaled")
        // And it looks like page 2 rendered at that size (bars, boxes, the number), not page 3.
        let page2 = try h.expectedFrame(pdf: pdf, page: 2, width: 480, height: 270)
        let page3 = try h.expectedFrame(pdf: pdf, page: 3, width: 480, height: 270)
        let whole = PixelRect(x: 0, y: 0, width: 480, height: 270)
        let near = PixelCompare.meanDifference(small, whole, page2), far = PixelCompare.meanDifference(small, whole, page3)
        XCTAssertLessThan(near, 4, "mean difference from page 2 at 480x270")
        XCTAssertLessThan(near * 3, far, "closer to page 2 than to page 3")

        try a.control(.blank(white: true))
        let white = try PNG.decode(a.screenshot(maxWidth: 320, maxHeight: 320))
        XCTAssertEqual([white.width, white.height], [320, 180])
        XCTAssertTrue(white.isUniform(white.bounds, .white))
    }

    func testPreviewsAreForThoseWhoMayPresentTheFile() throws {
        let h = try ServiceHarness(floor: .moderated)
        let mod = try h.moderator()
        let alice = try h.presenter("Alice"), bob = try h.presenter("Bob")
        let dir = Fixtures.tempDir("preview-rules")
        let pdf = try Fixtures.numberedDeck(count: 2, in: dir)
        let stored = try alice.upload(path: pdf)

        // Bob is in the room but didn't upload it: the audience sees slides when they are shown.
        XCTAssertServerError(.notYourContent, try bob.pagePreview(stored.content, page: 1, maxWidth: 320))
        // The moderator may show anything, so may preview anything.
        let m = try PNG.decode(mod.pagePreview(stored.content, page: 2, maxWidth: 320))
        XCTAssertEqual(PixelCompare.differingPixels(m, try h.expectedFrame(pdf: pdf, page: 2, width: 320, height: 180)), 0)

        XCTAssertServerError(.pageOutOfRange, try alice.pagePreview(stored.content, page: 3, maxWidth: 320))
        XCTAssertServerError(.unknownContent, try alice.pagePreview(ContentHasher.id(of: Array("nothing".utf8)), page: 1, maxWidth: 320))
        let clipID = try alice.upload(path: Fixtures.clip(in: dir, color: "blue", seconds: 1)).content
        XCTAssertServerError(.wrongKind, try alice.pagePreview(clipID, page: 1, maxWidth: 320))

        // Not registered: nothing.
        let stranger = try h.connect()
        XCTAssertServerError(.notRegistered, try stranger.pagePreview(stored.content, page: 1, maxWidth: 320))

        // Every refusal left the connections working.
        for c in [alice, bob, stranger] { XCTAssertTrue(c.isOpen) }
        XCTAssertEqual(try bob.state().devices.count, 3)
        XCTAssertEqual(try PNG.decode(alice.pagePreview(stored.content, page: 1, maxWidth: 64)).width, 64)
    }

    /// A clip holds the stage while it plays; previews don't wait for it.
    func testPreviewsAnswerWhileAClipPlays() throws {
        let h = try ServiceHarness(floor: .open)
        let a = try h.presenter("A")
        _ = try a.requestFloor()
        let dir = Fixtures.tempDir("preview-clip")
        let pdf = try Fixtures.numberedDeck(count: 2, in: dir)
        let deck = try a.upload(path: pdf).content
        let clip = try Fixtures.clip(in: dir, seconds: 1, name: "loop.mp4")
        try a.present(deck, page: 1)
        _ = try a.request(.clipPlay(content: try a.upload(path: clip).content, loop: true))
        _ = try a.waitForState { $0.screen.clip?.state == .playing }
        a.timeout = 10   // a looping clip never ends: a preview queued behind it would time out
        let p = try PNG.decode(a.pagePreview(deck, page: 2, maxWidth: 240))
        XCTAssertEqual(PixelCompare.differingPixels(p, try h.expectedFrame(pdf: pdf, page: 2, width: 240, height: 135)), 0)
        _ = try a.request(.clipStop)
    }
}
