import LecternCore
import XCTest

final class PageCacheTests: XCTestCase {
    let look = PageCache.Look(width: 16, height: 16, background: .black, overscanPercent: 0)

    func testLRUEvictionByBytes() {
        let frameBytes = 16 * 16 * 4
        let cache = PageCache(capacityBytes: frameBytes * 2)
        let k = (1...3).map { PageCache.Key(content: "a", page: $0, look: look) }
        cache.insert(Frame(width: 16, height: 16), for: k[0])
        cache.insert(Frame(width: 16, height: 16), for: k[1])
        XCTAssertNotNil(cache.lookup(k[0]))   // k0 now most recent
        cache.insert(Frame(width: 16, height: 16), for: k[2])   // evicts k1
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
        cache.insert(Frame(width: 16, height: 16), for: .init(content: "a", page: 1, look: look))
        var other = look
        other.background = .white
        XCTAssertNil(cache.lookup(.init(content: "a", page: 1, look: other)))
        cache.removeAll(content: "a")
        XCTAssertNil(cache.lookup(.init(content: "a", page: 1, look: look)))
        XCTAssertEqual(cache.statistics.bytes, 0)
    }
}
