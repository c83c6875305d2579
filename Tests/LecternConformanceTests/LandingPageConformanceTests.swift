import Foundation
import LecternModel
import LecternTestSupport
import XCTest

/// §28, the landing page, with request bytes written by hand. Plain on purpose: the landing
/// page is what the web remote's port answers in plain, beside TLS on the same port.
final class LandingPageConformanceTests: ConformanceTestCase {
    func ask(_ port: Int, _ request: String) -> String {
        guard let s = try? RawSocket(port: port) else { return "" }
        defer { s.close() }
        _ = s.send(Array(request.utf8))
        // The answer ends with the connection's close.
        var got: [UInt8] = []
        while let bytes = s.receive(timeout: 5), !bytes.isEmpty { got += bytes }
        return String(decoding: got, as: UTF8.self)
    }

    func testC89ThePlainAddressOpensTheLandingPage() throws {
        try start(.open, webRemote: true)
        try eventually("the web remote listens") { harness.service.httpPort != nil }
        let port = harness.service.httpPort!
        let short = try XCTUnwrap(harness.service.tlsIdentity?.fingerprint.short)
        XCTAssertEqual(short.count, 19, "4 groups of 4 hex digits")

        let page = ask(port, "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        XCTAssertTrue(page.hasPrefix("HTTP/1.1 200 OK\r\n"), page)
        let parts = page.components(separatedBy: "\r\n\r\n")
        let head = parts[0].lowercased(), body = parts.dropFirst().joined(separator: "\r\n\r\n")
        XCTAssertTrue(head.contains("\r\ncontent-type: text/html; charset=utf-8"), head)
        XCTAssertTrue(head.contains("\r\nconnection: close"), head)
        XCTAssertTrue(head.contains("form-action 'none'"), head)
        XCTAssertFalse(head.contains("set-cookie"), head)
        XCTAssertTrue(head.contains("\r\ncontent-length: \(body.utf8.count)"), "the whole body: \(head)")
        XCTAssertTrue(body.contains(">\(short)<"), "the wall's fingerprint")
        XCTAssertTrue(body.contains("href=\"https://127.0.0.1:\(port)/\""), "on to https:// at the same address")
        for tag in ["<form", "<input", "<textarea", "<select"] { XCTAssertFalse(body.contains(tag), tag) }

        let headOnly = ask(port, "HEAD / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        XCTAssertTrue(headOnly.hasPrefix("HTTP/1.1 200 OK\r\n"), headOnly)
        XCTAssertTrue(headOnly.hasSuffix("\r\n\r\n"), "no body to HEAD: \(headOnly)")

        let other = ask(port, "GET /viewer.html HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        XCTAssertTrue(other.hasPrefix("HTTP/1.1 301"), other)
        XCTAssertTrue(other.contains("\r\nLocation: https://127.0.0.1:\(port)/viewer.html\r\n"), other)
    }
}
