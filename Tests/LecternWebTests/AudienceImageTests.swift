import Foundation
@testable import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
import LecternTestSupport
import XCTest
import Synchronization

/// A viewer's slide over HTTP (docs/protocol.md §24.2), on real sockets: the state carries
/// the address, the device's key gets the image (PNG for a flat slide, JPEG for a photo),
/// its pixels are the wall's page at that size, `If-None-Match` gives 304, strangers 403,
/// a blank wall no image; the pointer reaches viewers.
final class AudienceImageTests: XCTestCase {
    struct Room {
        let h: ServiceHarness
        let presenter: LecternConnection
        let viewer: LecternConnection
        let content: ContentID
        let pdf: String
        var key: String { PageImageAddress.key(for: viewer.registration!.resumeToken) }
        func url(_ page: Int, _ width: Int, key k: String? = nil) -> String {
            h.url + PageImageAddress.url(content: content.hex, page: page, width: width, key: k ?? key).dropFirst()
        }
    }

    func room(_ pdf: (String) throws -> String) throws -> Room {
        let h = try ServiceHarness.web(floor: .open, browsers: false)
        let a = try h.connect()
        try a.register(name: "Ana", role: .presenter, passcode: ServiceHarness.presenterPass)
        _ = try a.requestFloor()
        let path = try pdf(Fixtures.tempDir("page-images"))
        let content = try a.upload(path: path).content
        try a.present(content, page: 1)
        let v = try h.connect()
        try v.register(name: "", role: .viewer, passcode: ServiceHarness.presenterPass)
        return Room(h: h, presenter: a, viewer: v, content: content, pdf: path)
    }

    func testTheSlideOverHTTPIsTheWallsPageWithAnETagAnd304AndOnlyForJoinedViewers() throws {
        let r = try room { try Fixtures.numberedDeck(count: 3, in: $0) }
        let state = try r.viewer.waitForState { $0.audience?.pageImage != nil }
        XCTAssertEqual(state.audience?.pageImage, "/page/\(r.content.hex)/1", "the state carries the live page's address")

        let got = try HTTP.send("GET", r.url(1, 640))
        XCTAssertEqual(got.status, 200)
        XCTAssertEqual(got.headers["content-type"], "image/png", "a flat slide is smaller (and exact) as PNG")
        let etag = try XCTUnwrap(got.headers["etag"])
        XCTAssertTrue(etag.hasPrefix("\"") && !etag.hasPrefix("W/"), "a strong validator")
        XCTAssertEqual(got.headers["cache-control"], "private, no-cache")
        let image = try PNG.decode(got.body)
        XCTAssertEqual(image.width, 640)
        XCTAssertEqual(PixelCompare.differingPixels(image, try r.h.expectedFrame(pdf: r.pdf, page: 1, width: 640, height: 360)), 0, "the page as the pipeline renders it")
        // And what the wall shows, scaled to the same size.
        let wall = try PNG.decode(r.presenter.screenshot()).scaled(width: 640, height: 360)
        XCTAssertLessThan(PixelCompare.meanDifference(image, PixelRect(x: 0, y: 0, width: 640, height: 360), wall), 4, "the wall's page, scaled")

        // Asked again with the validator: 304, no body; a page turn is a new address.
        let again = try HTTP.send("GET", r.url(1, 640), headers: ["If-None-Match": etag])
        XCTAssertEqual(again.status, 304)
        XCTAssertEqual(again.body.count, 0)
        XCTAssertEqual(again.headers["etag"], etag)
        XCTAssertEqual(try HTTP.send("GET", r.url(1, 640), headers: ["If-None-Match": "\"0000\""]).status, 200, "another validator: the image")
        XCTAssertEqual(try HTTP.send("GET", r.url(1, 1920)).status, 200, "each quantised width")
        XCTAssertEqual(try HTTP.send("GET", r.url(1, 641)).status, 404, "widths are quantised")

        // Strangers get nothing; nor the locked deck's other pages; nor a blanked wall.
        XCTAssertEqual(try HTTP.send("GET", r.url(1, 640, key: String(repeating: "0", count: 32))).status, 403)
        XCTAssertEqual(try HTTP.send("GET", r.url(1, 640, key: "")).status, 403)
        XCTAssertEqual(try HTTP.send("GET", r.url(2, 640)).status, 403, "locked: only the live page")
        try r.presenter.control(.next)
        XCTAssertEqual(try r.viewer.waitForState { $0.audience?.pageImage?.hasSuffix("/2") == true }.screen.page, 2)
        XCTAssertEqual(try HTTP.send("GET", r.url(2, 640)).status, 200)
        XCTAssertEqual(try HTTP.send("GET", r.url(1, 640)).status, 403, "the page before, once the wall moved on")
        _ = try r.presenter.request(.audienceSet(.unlock))
        _ = try r.viewer.waitForState { $0.audience?.locked == false }
        XCTAssertEqual(try HTTP.send("GET", r.url(3, 640)).status, 200, "unlocked: any page of the deck")
        XCTAssertEqual(try HTTP.send("GET", r.url(4, 640)).status, 404, "past the deck's end")
        try r.presenter.control(.blank(white: false))
        XCTAssertNil(try r.viewer.waitForState { $0.screen.blank != .none }.audience?.pageImage, "blank wall: no image")
        XCTAssertEqual(try HTTP.send("GET", r.url(2, 640)).status, 404)
        try r.presenter.control(.unblank)

        // A viewer that left can't fetch any more.
        let key = r.key
        _ = try r.viewer.waitForState { $0.screen.blank == .none }
        r.viewer.close()
        try eventually("the viewer is gone", timeout: 10) { try r.presenter.state().audience?.viewers == 0 }
        XCTAssertEqual(try HTTP.send("GET", r.url(2, 640, key: key)).status, 403)
    }

    func testAPhotoIsAJPEGThatMatchesTheWallAndAFlatSlideStaysPNG() throws {
        let r = try room { try Fixtures.photoDeck(in: $0) }
        _ = try r.viewer.waitForState { $0.audience?.pageImage != nil }
        let got = try HTTP.send("GET", r.url(1, 960))
        XCTAssertEqual(got.status, 200)
        XCTAssertEqual(got.headers["content-type"], "image/jpeg", "a photo is smaller as JPEG")
        let jpeg = try JPEG.decode([UInt8](got.body))
        XCTAssertEqual(jpeg.width, 960)
        let expected = try r.h.expectedFrame(pdf: r.pdf, page: 1, width: 960, height: 540)
        XCTAssertLessThan(PixelCompare.meanDifference(jpeg, PixelRect(x: 0, y: 0, width: 960, height: 540), expected), 3, "high quality: not blurred")
        XCTAssertLessThan(got.body.count, [UInt8](PNG.encode(expected)).count, "and smaller than the PNG")

        try r.presenter.control(.next)
        _ = try r.viewer.waitForState { $0.audience?.pageImage?.hasSuffix("/2") == true }
        let flat = try HTTP.send("GET", r.url(2, 960))
        XCTAssertEqual(flat.headers["content-type"], "image/png")
        XCTAssertEqual(PixelCompare.differingPixels(try PNG.decode(flat.body), try r.h.expectedFrame(pdf: r.pdf, page: 2, width: 960, height: 540)), 0)
    }

    /// A wall of several panes (C98, §24.8): every pane's page has its address in the state's
    /// `layout`, and a viewer may fetch it, as the main pane's; locked, only the page the
    /// pane shows; a deck no pane shows any more is 404. The image is the page as the whole
    /// wall would show it, whatever the pane's size.
    func testAViewerMayFollowAnyPaneOfTheWall() throws {
        let r = try room { try Fixtures.numberedDeck(count: 3, in: $0) }
        let mod = try r.h.moderator()
        let ben = try r.h.presenter("Ben")
        let pdf = try Fixtures.numberedDeck(count: 4, in: Fixtures.tempDir("ben-deck"), name: "ben.pdf")
        let b = try ben.upload(path: pdf).content
        XCTAssertEqual(try mod.request(.layoutSet(.split)), .ok)
        XCTAssertEqual(try mod.request(.paneSet(PaneRequest(pane: 1, .assign(ben.deviceID)))), .ok)
        try ben.present(b, page: 2)
        let s = try r.viewer.waitForState { $0.layout?.panes.count == 2 && $0.layout?.panes[1].pageImage != nil }
        XCTAssertEqual(s.layout?.panes[1].pageImage, "/page/\(b.hex)/2", "pane 1's page")
        XCTAssertEqual(s.layout?.panes[0].pageImage, s.audience?.pageImage, "the main pane's is audience.pageImage")
        XCTAssertEqual(s.audience?.pageImage, "/page/\(r.content.hex)/1")
        func url(_ page: Int) -> String { r.h.url + PageImageAddress.url(content: b.hex, page: page, width: 640, key: r.key).dropFirst() }
        let got = try HTTP.send("GET", url(2))
        XCTAssertEqual(got.status, 200)
        XCTAssertEqual(
            PixelCompare.differingPixels(try PNG.decode(got.body), try r.h.expectedFrame(pdf: pdf, page: 2, width: 640, height: 360)), 0,
            "the page as the whole wall would show it")
        XCTAssertEqual(try HTTP.send("GET", r.url(1, 640)).status, 200, "the main pane's still")
        XCTAssertEqual(try HTTP.send("GET", url(3)).status, 403, "locked: only the page the pane shows")
        try ben.control(.next)
        _ = try r.viewer.waitForState { $0.layout?.panes[1].pageImage?.hasSuffix("/3") == true }
        XCTAssertEqual(try HTTP.send("GET", url(3)).status, 200)
        _ = try r.presenter.request(.audienceSet(.unlock))
        _ = try r.viewer.waitForState { $0.audience?.locked == false }
        XCTAssertEqual(try HTTP.send("GET", url(1)).status, 200, "unlocked: any page of a deck a pane shows")
        XCTAssertEqual(try mod.request(.paneSet(PaneRequest(pane: 1, .clear))), .ok)
        _ = try r.viewer.waitForState { $0.layout?.panes[1].pageImage == nil }
        XCTAssertEqual(try HTTP.send("GET", url(3)).status, 404, "no pane shows Ben's deck any more")
        XCTAssertEqual(try HTTP.send("GET", r.url(1, 640, key: String(repeating: "0", count: 32))).status, 403, "strangers: nothing")
    }

    /// 30 viewers ask for a new page at once: it is rendered once for their width.
    func testManyViewersAskingAtOnceCostOneRender() throws {
        let r = try room { try Fixtures.numberedDeck(count: 3, in: $0) }
        let viewers = try (0..<30).map { _ -> LecternConnection in
            let v = try r.h.connect()
            try v.register(name: "", role: .viewer, passcode: ServiceHarness.presenterPass)
            return v
        }
        let keys = viewers.map { PageImageAddress.key(for: $0.registration!.resumeToken) }
        try r.presenter.control(.next)
        _ = try r.viewer.waitForState { $0.screen.page == 2 }
        let before = r.h.service.pageImageRenders
        let statuses = Mutex<[Int]>([])
        let urls = keys.map { r.url(2, 480, key: $0) }
        DispatchQueue.concurrentPerform(iterations: keys.count) { i in
            let s = (try? HTTP.send("GET", urls[i]).status) ?? 0
            statuses.withLock { $0.append(s) }
        }
        XCTAssertEqual(statuses.withLock { $0 }, Array(repeating: 200, count: keys.count))
        XCTAssertEqual(r.h.service.pageImageRenders - before, 1, "one render for the page at that width")
        for v in viewers { v.close() }
    }

    /// Someone points: every viewer gets the position (paced), and the lift.
    func testThePointerReachesViewers() throws {
        let r = try room { try Fixtures.numberedDeck(count: 3, in: $0) }
        _ = try r.viewer.waitForState { $0.audience?.pageImage != nil }
        _ = r.presenter.point(x: 0.25, y: 0.5)
        let p = try XCTUnwrap(r.viewer.nextViewerPointer(), "the viewer sees the pointer")
        XCTAssertEqual(p.page, 1)
        XCTAssertEqual(p.point, InkPoint(px: 0.25, py: 0.5))
        XCTAssertFalse(p.lifted)
        // A burst: paced, and the last position (the lift) always arrives.
        for i in 0..<50 { _ = r.presenter.point(x: Double(i) / 100, y: 0.5) }
        _ = r.presenter.point(x: 0.9, y: 0.9, lifted: true)
        var got: [ViewerPointer] = []
        while let q = r.viewer.nextViewerPointer(timeout: 2) {
            got.append(q)
            if q.lifted { break }
        }
        XCTAssertEqual(got.last?.lifted, true, "the lift arrives")
        XCTAssertEqual(got.last?.point, InkPoint(px: 0.9, py: 0.9))
        XCTAssertLessThan(got.count, 20, "51 positions sent in a burst reach viewers paced, not one each")
    }
}
