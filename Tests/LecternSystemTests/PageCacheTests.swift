import LecternModel
import LecternSystem
import XCTest

final class PageCacheTests: XCTestCase {
    let look = PageCache.Look(width: 16, height: 16, background: .black, overscanPercent: 0)
    func page() -> RenderedPage { RenderedPage(frame: Frame(width: 16, height: 16), pageRect: nil) }

    func testLRUEvictionByBytes() {
        let frameBytes = 16 * 16 * 4
        let cache = PageCache(capacityBytes: frameBytes * 2)
        let k = (1...3).map { PageCache.Key(content: "a", page: $0, look: look) }
        cache.insert(page(), for: k[0])
        cache.insert(page(), for: k[1])
        XCTAssertNotNil(cache.lookup(k[0]))   // k0 now most recent
        cache.insert(page(), for: k[2])   // evicts k1
        XCTAssertNil(cache.lookup(k[1]))
        XCTAssertNotNil(cache.lookup(k[0]))
        XCTAssertNotNil(cache.lookup(k[2]))
        let s = cache.statistics
        XCTAssertEqual(s.evictions, 1)
        XCTAssertEqual(s.entries, 2)
        XCTAssertEqual(s.bytes, frameBytes * 2)
        XCTAssertEqual(s.hits, 3)
        XCTAssertEqual(s.misses, 1)
    }

    func testLookIsPartOfTheKey() {
        let cache = PageCache(capacityBytes: 1 << 20)
        cache.insert(page(), for: .init(content: "a", page: 1, look: look))
        var other = look
        other.background = .white
        XCTAssertNil(cache.lookup(.init(content: "a", page: 1, look: other)))
        cache.removeAll(content: "a")
        XCTAssertNil(cache.lookup(.init(content: "a", page: 1, look: look)))
        XCTAssertEqual(cache.statistics.bytes, 0)
    }

    /// A hit gives back what the render reported with the frame: where the page sits and its
    /// transition (the display loop needs nothing else for a page turn).
    func testAHitCarriesThePageBoxAndTheTransition() {
        let cache = PageCache(capacityBytes: 1 << 20)
        let key = PageCache.Key(content: "a", page: 2, look: look, part: .left)
        let box = PixelRect(x: 2, y: 0, width: 12, height: 16)
        cache.insert(RenderedPage(frame: Frame(width: 16, height: 16), pageRect: box, transition: .fade(0.5)), for: key)
        let hit = cache.lookup(key)
        XCTAssertEqual(hit?.pageRect, box)
        XCTAssertEqual(hit?.transition, .fade(0.5))
        XCTAssertNil(cache.lookup(.init(content: "a", page: 2, look: look, part: .whole)), "the part is part of the key")
        let hits = cache.statistics.hits
        XCTAssertEqual(cache.peek(key)?.pageRect, box)
        XCTAssertEqual(cache.statistics.hits, hits, "a peek is not a use")
    }
}
