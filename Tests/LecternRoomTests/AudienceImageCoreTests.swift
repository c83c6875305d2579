import LecternModel
import LecternProtocol
@testable import LecternRoom
import XCTest

/// The pure parts of viewers' page images, the pointer's pace and prepared polls (§24.2, §24.3).
final class AudienceImageCoreTests: XCTestCase {
    func testTheAddressParsesOnlyQuantisedWidthsAndTheKeyIsTheDevicesOwn() {
        let c = String(repeating: "ab", count: 32)
        XCTAssertEqual(
            PageImageAddress.parse("/page/\(c)/3/640?k=00ff"), PageImageAddress.Request(content: c, page: 3, width: 640, key: "00ff"))
        XCTAssertNil(PageImageAddress.parse("/page/\(c)/3/641?k=00ff"), "not a quantised width")
        XCTAssertNil(PageImageAddress.parse("/page/\(c)/0/640?k=00ff"))
        XCTAssertNil(PageImageAddress.parse("/page/abc/1/640"))
        XCTAssertNil(PageImageAddress.parse("/page/\(c)/1/640/x"))
        XCTAssertEqual(PageImageAddress.width(fitting: 390 * 3), 1280)
        XCTAssertEqual(PageImageAddress.width(fitting: 100), 320)
        XCTAssertEqual(PageImageAddress.width(fitting: 5000), 1920)
        let t1 = ResumeToken.random(), t2 = ResumeToken.random()
        XCTAssertEqual(PageImageAddress.key(for: t1).count, 32)
        XCTAssertEqual(PageImageAddress.key(for: t1), PageImageAddress.key(for: t1))
        XCTAssertNotEqual(PageImageAddress.key(for: t1), PageImageAddress.key(for: t2))
        XCTAssertNotEqual(PageImageAddress.key(for: t1), Audience.voterKey(t1), "not the voter key that polls know the device by")
    }

    func testAccessFollowsTheLockAndTheWall() {
        var a = PageImageAccess()
        a.keys = ["k1"]
        XCTAssertEqual(a.decide(key: "k1", content: "c", page: 1), .notShown("That slide isn't on the wall now.\n"))
        a.content = "c"; a.page = 2; a.pageCount = 5
        XCTAssertEqual(a.decide(key: "k1", content: "c", page: 2), .allowed(part: .whole))
        guard case .forbidden = a.decide(key: "k2", content: "c", page: 2) else { return XCTFail("a stranger") }
        guard case .forbidden = a.decide(key: "", content: "c", page: 2) else { return XCTFail("no key") }
        guard case .forbidden = a.decide(key: "k1", content: "c", page: 3) else { return XCTFail("locked") }
        a.locked = false
        XCTAssertEqual(a.decide(key: "k1", content: "c", page: 3), .allowed(part: .whole))
        guard case .notShown = a.decide(key: "k1", content: "c", page: 6) else { return XCTFail("past the end") }
        guard case .notShown = a.decide(key: "k1", content: "d", page: 2) else { return XCTFail("another deck") }
    }

    func testTheAudienceKnowsTheKeysOfConnectedViewersOnly() throws {
        var au = Audience()
        let (v1, _) = try au.join(1, name: "", token: nil, fresh: ResumeToken.random)
        let (v2, _) = try au.join(2, name: "", token: v1.token, fresh: ResumeToken.random)   // the same phone twice
        XCTAssertEqual(au.imageKeys, [v1.imageKey])
        au.leave(1)
        XCTAssertEqual(au.imageKeys, [v2.imageKey], "still connected once")
        au.leave(2)
        XCTAssertEqual(au.imageKeys, [])
    }

    func testTheCacheIsBoundedByBytesLeastRecentlyUsedFirst() {
        var c = PageImageCache(capacityBytes: 100)
        func key(_ p: Int) -> PageImageCache.Key { .init(content: "c", page: p, width: 640, part: .whole, outputWidth: 1920, outputHeight: 1080) }
        func image(_ n: Int) -> PageImageCache.Image { .init(bytes: [UInt8](repeating: 1, count: n), contentType: "image/png", etag: "\"\(n)\"") }
        c.insert(image(40), for: key(1))
        c.insert(image(40), for: key(2))
        _ = c.lookup(key(1))
        c.insert(image(40), for: key(3))
        XCTAssertNotNil(c.lookup(key(1)))
        XCTAssertNil(c.lookup(key(2)), "the least recently used went")
        XCTAssertLessThanOrEqual(c.bytes, 100)
        c.insert(image(101), for: key(4))
        XCTAssertNil(c.lookup(key(4)), "larger than the budget: not kept")
        var other = key(1)
        other.outputWidth = 1280
        XCTAssertNil(c.lookup(other), "another output mode is another image")
    }

    func testThePointerIsPacedAndTheLastPositionIsOwed() {
        var p = ViewerPointerPacer()
        let a = ViewerPointer(page: 1, point: InkPoint(x: 1, y: 1), lifted: false)
        let b = ViewerPointer(page: 1, point: InkPoint(x: 2, y: 2), lifted: false)
        let up = ViewerPointer(page: 1, point: InkPoint(x: 3, y: 3), lifted: true)
        XCTAssertEqual(p.offer(a, now: 10), a)
        XCTAssertNil(p.offer(b, now: 10.01))
        XCTAssertNil(p.offer(up, now: 10.02))
        XCTAssertEqual(p.owedAt!, 10 + ViewerPointerPacer.interval, accuracy: 1e-9)
        XCTAssertNil(p.due(now: 10.03), "not its turn yet")
        XCTAssertEqual(p.due(now: 10.05), up, "the newest position, the lift")
        XCTAssertNil(p.owedAt)
        XCTAssertNil(p.offer(a, now: 10.06))
        XCTAssertEqual(p.offer(b, now: 10.2), b, "after the interval: at once")
    }

    func testPreparedPollsAreCheckedBoundedAndPerDeck() throws {
        var p = PreparedPolls()
        try p.set([PollDraft(question: "Q?", kind: .yesno)], for: "d1")
        XCTAssertEqual(p.drafts(for: "d1").first?.answers, ["Yes", "No"])
        XCTAssertEqual(p.drafts(for: "d2"), [])
        XCTAssertThrowsError(try p.set([PollDraft(question: "", kind: .yesno)], for: "d1"))
        XCTAssertThrowsError(try p.draft(1, for: "d1"))
        try p.set([], for: "d1")
        XCTAssertTrue(p.isEmpty)
        for i in 0..<AudienceLimits.maxPreparedDecks { try p.set([PollDraft(question: "Q?", kind: .yesno)], for: "deck\(i)") }
        XCTAssertThrowsError(try p.set([PollDraft(question: "Q?", kind: .yesno)], for: "one-more"))
        p.keep(only: ["deck1"])
        XCTAssertEqual(p.byDeck.keys.sorted(), ["deck1"])
    }
}
