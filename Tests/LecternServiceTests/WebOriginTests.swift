import NIOHTTP1
import XCTest

@testable import LecternService

final class WebOriginTests: XCTestCase {
    func testOnlyThePagesOwnOriginOrNoneMayOpenTheWebSocket() {
        let table: [(origin: String?, host: String, allowed: Bool)] = [
            (nil, "192.168.1.20:8080", true),
            ("http://192.168.1.20:8080", "192.168.1.20:8080", true),
            ("HTTP://Projector.local:8080", "projector.local:8080", true),
            ("http://192.168.1.20", "192.168.1.20:80", true),
            ("http://192.168.1.20", "192.168.1.20", true),
            ("http://[fe80::1]:8080", "[fe80::1]:8080", true),
            ("http://evil.example", "192.168.1.20:8080", false),
            ("http://192.168.1.20:8081", "192.168.1.20:8080", false),
            ("https://192.168.1.20:8080", "192.168.1.20", false),
            ("http://192.168.1.20:8080.evil.example", "192.168.1.20:8080", false),
            ("http://user@192.168.1.20:8080", "192.168.1.20:8080", false),
            ("null", "192.168.1.20:8080", false),
            ("file://", "192.168.1.20:8080", false),
        ]
        for row in table {
            var h = HTTPHeaders([("Host", row.host)])
            if let o = row.origin { h.add(name: "Origin", value: o) }
            XCTAssertEqual(WebOrigin.allows(h), row.allowed, "Origin \(row.origin ?? "none") for Host \(row.host)")
        }
        // An Origin with no Host to compare with, or two Origins: refused.
        XCTAssertFalse(WebOrigin.allows(HTTPHeaders([("Origin", "http://a")])))
        XCTAssertFalse(WebOrigin.allows(HTTPHeaders([("Host", "a"), ("Origin", "http://a"), ("Origin", "http://b")])))
    }
}
