import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol
import LecternTestSupport
import XCTest

/// Issue 25, finding 10 (the network items): the refusal told in TLS, the plain redirect
/// kept to this appliance, slow peers no longer locking out `/metrics`, and a per-address
/// budget of TLS handshakes.
final class TLSEdgeTests: XCTestCase {
    /// Too many connections from one address: a TLS client is told `tooManyConnections`
    /// inside TLS (it used to read the plain error frame as a broken TLS record).
    func testARefusedTLSClientIsToldTooManyConnections() throws {
        let h = try HTTPS.room { $0.maxConnectionsPerAddress = 2 }
        let fp = try HTTPS.fingerprint(h)
        let held = try (0..<2).map { _ in try LecternConnection(host: "127.0.0.1", port: h.port, tls: .pinned(fp)) }
        XCTAssertThrowsError(try LecternConnection(host: "127.0.0.1", port: h.port, tls: .pinned(fp))) {
            XCTAssertEqual(($0 as? LecternConnection.ClientError)?.lecternError?.code, .tooManyConnections, "\($0)")
        }
        // The CLI says so too.
        let known = h.dir + "/known-rooms"
        try "127.0.0.1:\(h.port) \(fp.hex)\n".write(toFile: known, atomically: true, encoding: .utf8)
        let r = try Fixtures.run(
            "env",
            [
                "LECTERN_PASSCODE=\(ServiceHarness.presenterPass)", "LECTERN_KNOWN_ROOMS=\(known)", "PATH=/usr/bin:/bin", try Fixtures.binary("lectern"), "status", "--port",
                "\(h.port)", "--name", "probe",
            ])
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.err.lowercased().contains("too many connections"), r.err)
        held.forEach { $0.close() }
    }

    /// A plain request's Host names another machine: the redirect goes to the address the
    /// connection arrived on, never there. (Plain: the test is about plain HTTP.)
    func testThePlainRedirectStaysOnTheAppliance() throws {
        let h = try HTTPS.room()
        let port = h.service.httpPort ?? -1
        func location(_ host: String) throws -> String {
            let s = try RawSocket(port: port)
            defer { s.close() }
            s.send(Array("GET /index.html?x=1 HTTP/1.1\r\nHost: \(host)\r\n\r\n".utf8))
            let bytes = s.read(timeout: 5) { Hostile.headEnd($0) != nil }
            XCTAssertEqual(Hostile.status(bytes), 301)
            return HTTPS.headers(bytes[..<(Hostile.headEnd(bytes) ?? bytes.count)])["location"] ?? ""
        }
        XCTAssertEqual(try location("evil.example"), "https://127.0.0.1:\(port)/index.html?x=1")
        XCTAssertEqual(try location("evil.example:\(port)"), "https://127.0.0.1:\(port)/index.html?x=1")
        XCTAssertEqual(try location("[2001:db8::1]:443"), "https://127.0.0.1:\(port)/index.html?x=1")
        XCTAssertEqual(try location("127.0.0.1:\(port)"), "https://127.0.0.1:\(port)/index.html?x=1", "its own address is kept")
        XCTAssertEqual(try location("localhost:\(port)"), "https://localhost:\(port)/index.html?x=1", "a name of this appliance is kept")
    }

    /// Eight peers that open the metrics port and never finish a request used to hold all
    /// its places: a scrape now gets in (the oldest slow one makes way) and is answered.
    func testSlowPeersCantLockOutAScrape() throws {
        let h = try ServiceHarness(floor: .open) { c in
            c.tls = true
            c.metricsAddress = ListenAddress(host: "127.0.0.1", port: 0)
        }
        let port = try XCTUnwrap(h.service.metricsPort)
        var slow: [RawSocket] = []
        for _ in 0..<8 {
            let s = try RawSocket(port: port)
            XCTAssertTrue(s.send(Array("GET /metr".utf8)))
            slow.append(s)
        }
        // Each scrape is answered, however many slow peers keep coming.
        for _ in 0..<3 {
            for _ in 0..<8 {
                let s = try RawSocket(port: port)
                s.send(Array("GET /me".utf8))
                slow.append(s)
            }
            let scrape = try RawSocket(port: port)
            scrape.send(Array("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            let answer = scrape.read(timeout: 5) { Hostile.headEnd($0) != nil }
            XCTAssertEqual(Hostile.status(answer), 200, String(decoding: answer.prefix(200), as: UTF8.self))
            scrape.close()
        }
        // A peer that never finishes its head is closed after the head time (2 s).
        let late = try RawSocket(port: port)
        late.send(Array("GET /".utf8))
        let start = MonotonicClock.now()
        XCTAssertTrue(Hostile.closedByService(late, within: 5))
        XCTAssertLessThan(MonotonicClock.now() - start, 4)
        slow.forEach { $0.close() }
    }

    /// One address making TLS handshakes as fast as it can gets its burst and then its rate
    /// (`max_connections_per_address` 2 here: 4 at once, 1 a second); another address is
    /// served meanwhile.
    func testOneAddressGetsABudgetOfTLSHandshakes() throws {
        let h = try HTTPS.room { $0.maxConnectionsPerAddress = 2 }
        let fp = try HTTPS.fingerprint(h)
        var made: [TLSProbe] = [], refused = 0
        let start = MonotonicClock.now()
        // Past the first two the connections are refused by the per-address limit too, but
        // told so inside TLS after the handshake: a handshake still (and counted).
        for _ in 0..<24 {
            do { made.append(try TLSProbe(port: h.port, from: "127.0.0.40", fingerprint: fp, timeout: 5)) } catch { refused += 1 }
        }
        let elapsed = MonotonicClock.now() - start
        print("24 handshakes from one address in \(elapsed) s: \(made.count) made, \(refused) refused")
        XCTAssertGreaterThan(refused, 0, "past the budget, handshakes are refused")
        XCTAssertLessThanOrEqual(Double(made.count), 4 + elapsed + 1, "the burst and then the rate")
        XCTAssertNoThrow(try TLSProbe(port: h.port, from: "127.0.0.41", fingerprint: fp).close(), "another address is served")
        XCTAssertNoThrow(try TLSProbe(port: h.service.httpPort ?? -1, from: "127.0.0.42", fingerprint: fp).close(), "and on the web remote's port")
    }
}
