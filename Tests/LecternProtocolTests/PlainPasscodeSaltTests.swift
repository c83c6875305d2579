import LecternProtocol
import XCTest

/// A plain passcode's salt: the same for the same secret, role and passcode (a restart keeps
/// the key), different when any of them changes.
final class PlainPasscodeSaltTests: XCTestCase {
    func testTheSaltIsStableAndFollowsThePasscode() throws {
        let secret = [UInt8](repeating: 7, count: 32), other = [UInt8](repeating: 8, count: 32)
        let a = PlainPasscodeSalt.salt(secret: secret, role: .presenter, passcode: "open sesame")
        XCTAssertEqual(a.count, PasscodeHash.defaultSaltLength)
        XCTAssertEqual(a, PlainPasscodeSalt.salt(secret: secret, role: .presenter, passcode: "open sesame"))
        XCTAssertNotEqual(a, PlainPasscodeSalt.salt(secret: secret, role: .presenter, passcode: "open sesame!"))
        XCTAssertNotEqual(a, PlainPasscodeSalt.salt(secret: secret, role: .moderator, passcode: "open sesame"))
        XCTAssertNotEqual(a, PlainPasscodeSalt.salt(secret: other, role: .presenter, passcode: "open sesame"))
        // NFC: the same passcode typed with a combining accent is the same passcode.
        XCTAssertEqual(
            PlainPasscodeSalt.salt(secret: secret, role: .presenter, passcode: "caf\u{E9}"),
            PlainPasscodeSalt.salt(secret: secret, role: .presenter, passcode: "cafe\u{301}"))

        let k1 = try PlainPasscodeSalt.key(config: "open sesame", role: .presenter, secret: secret).key()
        let k2 = try PlainPasscodeSalt.key(config: "open sesame", role: .presenter, secret: secret).key()
        XCTAssertEqual(k1, k2, "the same key after a restart")
        XCTAssertEqual(k1.salt, a)
        // Without a secret: a fresh salt each time (the old behaviour, for a read-only data dir).
        XCTAssertNotEqual(
            try PlainPasscodeSalt.key(config: "open sesame", role: .presenter, secret: nil).salt,
            try PlainPasscodeSalt.key(config: "open sesame", role: .presenter, secret: nil).salt)
        // A hash in the config is taken as it is.
        let hash = PasscodeHash.make(passcode: "x", rounds: 10_000)
        XCTAssertEqual(try PlainPasscodeSalt.key(config: hash, role: .presenter, secret: secret).key(), try PasscodeHash.parse(hash))
    }
}
