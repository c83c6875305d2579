import LecternModel
import XCTest

/// What a connection's first byte makes of it, and the plain web port's answers (§25.5).
final class TransportPolicyTests: XCTestCase {
    func testTheFirstByteChoosesTLSPlainOrRefusal() {
        let strict = TransportPolicy(tls: true, allowPlain: false)
        XCTAssertEqual(strict.choose(firstByte: 0x16), .tls)
        XCTAssertEqual(strict.choose(firstByte: 0x01), .refusePlain, "a plain register")
        XCTAssertEqual(strict.choose(firstByte: UInt8(ascii: "G")), .refusePlain, "a plain GET")
        XCTAssertEqual(strict.choose(firstByte: nil), .refusePlain, "silence: a plain client waiting for hello")
        let both = TransportPolicy(tls: true, allowPlain: true)
        XCTAssertEqual(both.choose(firstByte: 0x16), .tls)
        XCTAssertEqual(both.choose(firstByte: nil), .plain)
        XCTAssertEqual(both.choose(firstByte: 0x01), .plain)
        let off = TransportPolicy(tls: false, allowPlain: false)
        XCTAssertFalse(off.sniffs)
        XCTAssertEqual(off.choose(firstByte: 0x16), .plain, "no TLS: everything is plain")
    }

    func head(_ s: String) -> [UInt8] { Array(s.utf8) }

    func testPlainHTTPAnswers() {
        XCTAssertEqual(
            PlainHTTPAnswer.answer(head: head("GET /wall?x HTTP/1.1\r\nHost: 192.0.2.7:8080\r\n"), allowPlain: false),
            .redirect("https://192.0.2.7:8080/wall?x"))
        XCTAssertEqual(PlainHTTPAnswer.answer(head: head("GET /ws HTTP/1.1\r\nhost: [fe80::1]:8080\r\n"), allowPlain: true), .pass)
        if case .refuse(let status, let text) = PlainHTTPAnswer.answer(head: head("GET /ws HTTP/1.1\r\nHost: a:1\r\n"), allowPlain: false) {
            XCTAssertEqual(status, 403)
            XCTAssertTrue(text.contains("wss://a:1/ws"), text)
        } else {
            XCTFail("a plain WebSocket is refused")
        }
        XCTAssertEqual(PlainHTTPAnswer.answer(head: head("GET / HTTP/1.1\r\nHost: a\r\n b\r\n"), allowPlain: false), .redirect("https://a/"))
        for bad in ["GET / HTTP/1.1\r\nHost: a\rLocation: x\r\n", "GET / HTTP/1.1\r\nHost: a b\r\n", "GET / HTTP/1.1\r\n", "GET http://x/ HTTP/1.1\r\nHost: a\r\n", "BLAH\r\n"] {
            guard case .refuse(let status, _) = PlainHTTPAnswer.answer(head: head(bad), allowPlain: false) else { return XCTFail("\(bad.debugDescription) refused") }
            XCTAssertEqual(status, 400, bad.debugDescription)
        }
        XCTAssertEqual(
            PlainHTTPAnswer.answer(head: [UInt8](repeating: 65, count: PlainHTTPAnswer.maxHead + 1), allowPlain: true),
            .refuse(status: 431, text: "Request header too large."))
        guard case .refuse(403, _) = PlainHTTPAnswer.answer(head: head("POST /x HTTP/1.1\r\nHost: a\r\n"), allowPlain: false) else {
            return XCTFail("a plain POST is refused")
        }
    }
}
