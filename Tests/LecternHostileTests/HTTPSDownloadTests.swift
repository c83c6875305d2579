import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol
import LecternTestSupport
import XCTest

/// Issue 25, finding 1: `GET /download/<token>` over HTTPS ended the service (a sendfile
/// region can't go through TLS), and again after every restart (the token is kept). The
/// deck is now streamed a piece at a time, the same over TLS and plain, each piece read
/// once the one before is out, all downloads together within the listener's places.
final class HTTPSDownloadTests: XCTestCase {
    func testTheDeckDownloadsOverHTTPSAsUploadedAndAgainAfterARestart() throws {
        let h = try HTTPS.room()
        let deck = try Fixtures.largeDeck(padding: 3 << 20, in: h.dir, name: "Quarterly review.pdf")
        let want = [UInt8](try Data(contentsOf: URL(fileURLWithPath: deck)))
        let (_, path) = try HTTPS.offer(h, deck: deck)

        let got = try HTTPS.get(h, path)
        XCTAssertEqual(got.status, 200)
        XCTAssertEqual(got.headers["content-type"], "application/pdf")
        XCTAssertEqual(got.headers["content-length"], String(want.count))
        XCTAssertTrue(got.body == want, "the deck as uploaded, byte for byte (\(got.body.count) of \(want.count) bytes)")
        let head = try HTTPS.get(h, path, method: "HEAD")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.headers["content-length"], String(want.count))
        XCTAssertTrue(head.body.isEmpty)

        // The token is kept in state.json: after a restart the same address works (and
        // doesn't end the service).
        try h.restart()
        let again = try HTTPS.get(h, path)
        XCTAssertEqual(again.status, 200)
        XCTAssertTrue(again.body == want, "after the restart too")
        XCTAssertEqual(try HTTPS.get(h, "/download/" + String(repeating: "0", count: 32)).status, 403)
    }

    /// Twenty-four peers download a 48 MB deck over HTTPS and read it slowly (16 KiB every
    /// 20 ms), four more ask and never read: the service holds a bounded amount for all of
    /// them (never the deck, never a piece per byte waiting), the floor holder's pings are
    /// answered throughout, and a never-reading peer is closed after the stall time.
    func testManySlowHTTPSReadersOfALargeDeckCostBoundedMemory() throws {
        let h = try HTTPS.room()
        let deck = try Fixtures.largeDeck(padding: 48 << 20, in: h.dir)
        let size = try FileManager.default.attributesOfItem(atPath: deck)[.size] as! Int
        let (holder, path) = try HTTPS.offer(h, deck: deck)
        let fp = try HTTPS.fingerprint(h)
        let port = h.service.httpPort ?? -1
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        // Warm up: one whole download, so that what the first one allocates isn't counted.
        XCTAssertEqual(try HTTPS.get(h, path).body.count, size)

        var slow: [TLSProbe] = [], silent: [TLSProbe] = []
        var growth = (bytes: 0, descriptors: 0)
        let pings = try HTTPS.pings(holder) {
            growth = try Footprint.peakGrowth {
                for i in 0..<24 { slow.append(try TLSProbe(port: port, from: "127.0.0.\(10 + i % 8)", fingerprint: fp, keep: false)) }
                for _ in 0..<4 { silent.append(try TLSProbe(port: port, from: "127.0.0.30", fingerprint: fp, keep: false)) }
                for p in slow + silent { p.send(request) }
                // About 6 s of slow reading: 16 KiB per reader every 20 ms.
                let end = MonotonicClock.now() + 6
                while MonotonicClock.now() < end {
                    for p in slow { p.readOnce() }
                    Thread.sleep(forTimeInterval: 0.02)   // the readers' pace, not a wait for anything
                }
            }
        }
        let read = slow.map(\.receivedCount)
        print("slow HTTPS readers: \(read.reduce(0, +) >> 20) MiB read in all; service growth \(growth.bytes >> 20) MiB; holder's ping p50 \(pings.p50) ms p99 \(pings.p99) ms")
        XCTAssertTrue(read.allSatisfy { $0 > 64 << 10 }, "every slow reader gets its bytes: \(read)")
        XCTAssertLessThan(growth.bytes, 40 << 20, "28 downloads of a 48 MB deck cost a bounded amount")
        XCTAssertLessThan(pings.p99, 1000, "the floor holder's pings are answered (p50 \(pings.p50) ms)")
        XCTAssertFalse(pings.p99.isInfinite)
        for p in slow { p.close() }
        // (A probe that doesn't read doesn't see its close: the service's count does.)
        try eventually("the never-reading downloads closed after the stall time", timeout: 15) { h.service.connectionCounts.open <= 1 }
    }
}
