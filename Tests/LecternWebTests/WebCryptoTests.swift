import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// The web remote's cryptography in a real headless Chromium (Debian's chromium and
/// chromium-driver).
final class WebCryptoTests: XCTestCase {
    /// The JavaScript SHA-256, HMAC and PBKDF2 (what a phone on plain http:// uses, where
    /// WebCrypto is missing) against the worked example of docs/protocol.md §16 and Swift.
    func testTheJavaScriptCryptoMatchesTheProtocolsWorkedExample() throws {
        let h = try ServiceHarness.web()
        let b = try h.browser()
        let result =
            try b.executeAsync(
                """
                const done = arguments[arguments.length - 1];
                const L = window.Lectern;
                (async () => {
                  const key = await L.pbkdf2Sha256(L.utf8('correct horse'), L.fromHex('101112131415161718191a1b1c1d1e1f'), 210000);
                  const mac = L.registerMAC(L.fromHex('a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf'), 1, L.utf8("Ana's laptop"), null);
                  const big = new Uint8Array(3 * 1024 * 1024 + 17);
                  for (let i = 0; i < big.length; i++) big[i] = (i * 31 + (i >> 8)) & 255;
                  const viaSubtle = await L.deriveKey('correct horse', L.fromHex('101112131415161718191a1b1c1d1e1f'), 210000);
                  done([L.hex(key), L.hex(mac), L.hex(L.hmacSha256(key, mac)), L.hex(L.sha256(big)),
                        L.hex(L.sha256(new Uint8Array(0))), L.hex(viaSubtle), isSecureContext]);
                })().catch((e) => done(['error', String(e)]));
                """) as? [Any] ?? []
        XCTAssertEqual(result.count, 7, "\(result)")
        guard result.count == 7 else { return }
        XCTAssertEqual(result[0] as? String, "0cd6eee03b2dc4eea4f74e2c35f6a0bfbc49887e644c49af404c12e383327f11")
        XCTAssertEqual(
            result[1] as? String,
            "6c65637465726e2d72656769737465722d7631a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf01000c416e61277320"
                + "6c6170746f7000")
        XCTAssertEqual(result[2] as? String, "3d94cb65671ce746ac74ea74c1dd03d27b62e2d53a711dc78c2b2a0840c03233")
        var big = [UInt8](repeating: 0, count: 3 * 1024 * 1024 + 17)
        for i in 0..<big.count { big[i] = UInt8(truncatingIfNeeded: i &* 31 &+ (i >> 8)) }
        XCTAssertEqual(result[3] as? String, ContentHasher.id(of: big).hex)
        XCTAssertEqual(result[4] as? String, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(result[5] as? String, result[0] as? String, "WebCrypto and the JavaScript PBKDF2 agree")
    }
}
