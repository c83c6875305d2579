import Glibc
import LecternTestSupport
import XCTest

/// A peer that pipelines ~450 KB of `GET /lectern.css` (the largest file at the root) on the web port and never reads:
/// the daemon grew by ~700 MiB. Now it answers one request at a time, reads no further
/// while the answer is not taken, and closes a peer that takes nothing for 5 s.
final class PipelinedRequestsTests: XCTestCase {
    func testAPeerThatNeverReadsCantGrowTheService() throws {
        let h = try ServiceHarness(webRemote: true)
        let port = try XCTUnwrap(h.service.httpPort)
        let before = Footprint.residentBytes()
        let request = Array("GET /lectern.css HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
        let burst = Array([[UInt8]](repeating: request, count: 450_000 / request.count).joined())
        let fd = try h.raw(port: port)
        defer { fd.close() }
        // Send what the socket takes, as long as it takes some (bounded: 40 rounds).
        var sent = 0, peak = before
        for _ in 0..<40 {
            let n = fd.sendNow(Array(burst[(sent % burst.count)...]))
            sent += n
            peak = max(peak, Footprint.residentBytes())
            if n == 0 { break }
        }
        // The service stops reading and closes the connection that takes nothing.
        try eventually("the service closing the peer that never reads (open: \(h.service.connectionCounts.open))", timeout: 15, interval: 0.1) {
            peak = max(peak, Footprint.residentBytes())
            return h.service.connectionCounts.open == 0
        }
        let growth = peak - before
        print("pipelining peer: \(sent) bytes of requests sent, service grew by \(growth >> 20) MiB at most")
        XCTAssertLessThan(growth, 64 << 20, "resident memory grew by \(growth >> 20) MiB")
        // And the web remote still answers.
        let ok = try h.raw(port: port)
        defer { ok.close() }
        ok.sendNow(Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
        XCTAssertEqual(Hostile.status(ok.read(timeout: 5) { Hostile.headEnd($0) != nil }), 200)
    }

    func testAnIdleOrSlowHTTPConnectionIsClosed() throws {
        let h = try ServiceHarness(webRemote: true) {
            $0.httpHeadTimeout = 1; $0.httpIdleTimeout = 2
        }
        let port = try XCTUnwrap(h.service.httpPort)
        // Slowloris: a request head that never ends.
        let slow = try h.raw(port: port)
        defer { slow.close() }
        slow.sendNow(Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8))
        XCTAssertEqual(slow.receive(timeout: 5), [], "the slow head was not closed within 5 s")
        // Kept alive after a request, then idle.
        let idle = try h.raw(port: port)
        defer { idle.close() }
        idle.sendNow(Array("GET /lectern.css HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        let answer = idle.read(timeout: 8) { _ in false }   // the answer, then the close
        XCTAssertEqual(Hostile.status(answer), 200)
        XCTAssertEqual(idle.receive(timeout: 0), [], "the idle connection was not closed")
        try eventually("the connections gone") { h.service.connectionCounts.open == 0 }
    }
}
