import XCTest
@testable import LecternProtocol

final class AuthTests: XCTestCase {
    let rounds: UInt32 = 10_000   // keep tests quick; the default is exercised in ExampleSessionTests
    let salt: [UInt8] = Array(1...16)
    let challenge: [UInt8] = Array(100..<132)

    func request(
        passcode: String, challenge: [UInt8], role: Role = .presenter, name: String = "Ana", token: ResumeToken? = nil,
        stored: PasscodeHash
    ) -> RegisterRequest {
        let proof = RegisterProof.compute(passcode: passcode, parameters: stored.parameters, challenge: challenge, role: role, name: name, resumeToken: token)
        return RegisterRequest(role: role, proof: proof, resumeToken: token, name: name)
    }

    func testProofVerifiesWithTheRightPasscodeOnly() {
        let stored = PasscodeHash.derive(passcode: "correct horse", rounds: rounds, salt: salt)
        XCTAssertTrue(RegisterProof.verify(request(passcode: "correct horse", challenge: challenge, stored: stored), challenge: challenge, key: stored))
        XCTAssertFalse(RegisterProof.verify(request(passcode: "correct horse!", challenge: challenge, stored: stored), challenge: challenge, key: stored))
        XCTAssertFalse(RegisterProof.verify(request(passcode: "", challenge: challenge, stored: stored), challenge: challenge, key: stored))
    }

    func testRecordedProofFailsOnAnotherChallenge() {
        let stored = PasscodeHash.derive(passcode: "pw", rounds: rounds, salt: salt)
        let recorded = request(passcode: "pw", challenge: challenge, stored: stored)
        var other = challenge; other[31] ^= 1
        XCTAssertFalse(RegisterProof.verify(recorded, challenge: other, key: stored))
    }

    func testProofIsBoundToNameRoleAndToken() {
        let stored = PasscodeHash.derive(passcode: "pw", rounds: rounds, salt: salt)
        let r = request(passcode: "pw", challenge: challenge, token: token(1), stored: stored)
        XCTAssertTrue(RegisterProof.verify(r, challenge: challenge, key: stored))
        var renamed = r; renamed.name = "Bob"
        XCTAssertFalse(RegisterProof.verify(renamed, challenge: challenge, key: stored))
        var promoted = r; promoted.role = .moderator
        XCTAssertFalse(RegisterProof.verify(promoted, challenge: challenge, key: stored))
        var otherToken = r; otherToken.resumeToken = token(2)
        XCTAssertFalse(RegisterProof.verify(otherToken, challenge: challenge, key: stored))
        var noToken = r; noToken.resumeToken = nil
        XCTAssertFalse(RegisterProof.verify(noToken, challenge: challenge, key: stored))
        var shortProof = r; shortProof.proof = Array(r.proof.prefix(16))
        XCTAssertFalse(RegisterProof.verify(shortProof, challenge: challenge, key: stored))
    }

    func testPresenterPasscodeDoesNotOpenTheModeratorRole() {
        let presenter = PasscodeHash.derive(passcode: "room", rounds: rounds, salt: salt)
        let moderator = PasscodeHash.derive(passcode: "chair", rounds: rounds, salt: Array(repeating: 9, count: 16))
        // Proof computed with the presenter passcode but asking for the moderator role.
        let proof = RegisterProof.compute(passcode: "room", parameters: moderator.parameters, challenge: challenge, role: .moderator, name: "M", resumeToken: nil)
        XCTAssertFalse(RegisterProof.verify(RegisterRequest(role: .moderator, proof: proof, resumeToken: nil, name: "M"), challenge: challenge, key: moderator))
        let good = RegisterProof.compute(passcode: "chair", parameters: moderator.parameters, challenge: challenge, role: .moderator, name: "M", resumeToken: nil)
        XCTAssertTrue(RegisterProof.verify(RegisterRequest(role: .moderator, proof: good, resumeToken: nil, name: "M"), challenge: challenge, key: moderator))
        XCTAssertFalse(RegisterProof.verify(RegisterRequest(role: .moderator, proof: good, resumeToken: nil, name: "M"), challenge: challenge, key: presenter))
    }

    func testMACInputLayout() {
        let m = RegisterProof.message(challenge: Array(repeating: 0xCC, count: 32), role: .moderator, name: "Ab", resumeToken: token(0xEE))
        XCTAssertEqual(m, Array("lectern-register-v1".utf8) + Array(repeating: 0xCC, count: 32) + [2, 0, 2, 0x41, 0x62, 16] + Array(repeating: 0xEE, count: 16))
    }

    func testPBKDF2MatchesRFC7914Vector() {
        // RFC 7914 §11: PBKDF2-HMAC-SHA256("passwd", "salt", c=1, dkLen=64), first 32 bytes.
        let k = PasscodeHash.deriveKey(passcode: "passwd", salt: Array("salt".utf8), rounds: 1)
        XCTAssertEqual(hexString(k), "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc")
    }

    func testPasscodeIsNFCNormalised() {
        let composed = PasscodeHash.deriveKey(passcode: "caf\u{E9}", salt: salt, rounds: 1000)
        let decomposed = PasscodeHash.deriveKey(passcode: "cafe\u{301}", salt: salt, rounds: 1000)
        XCTAssertEqual(composed, decomposed)
    }

    func testHashMakeParseRoundTrip() throws {
        let s = PasscodeHash.make(passcode: "pw", rounds: rounds, salt: salt)
        XCTAssertTrue(s.hasPrefix("pbkdf2-sha256$10000$AQIDBAUGBwgJCgsMDQ4PEA==$"))
        let h = try PasscodeHash.parse(s)
        XCTAssertEqual(h.rounds, rounds)
        XCTAssertEqual(h.salt, salt)
        XCTAssertEqual(h.key, PasscodeHash.deriveKey(passcode: "pw", salt: salt, rounds: rounds))
        XCTAssertEqual(h.encoded, s)
        // Random salts differ.
        XCTAssertNotEqual(PasscodeHash.make(passcode: "pw", rounds: rounds), PasscodeHash.make(passcode: "pw", rounds: rounds))
        // Config values: a hash is parsed, anything else is a plain passcode.
        XCTAssertEqual(try PlainPasscodeSalt.key(config: s, role: .presenter, secret: nil), .given(h))
        let plain = try PlainPasscodeSalt.key(config: "pw", role: .presenter, secret: nil)
        XCTAssertEqual(plain.rounds, PasscodeHash.defaultRounds)
        XCTAssertEqual(PendingKey.derive(passcode: "pw", rounds: rounds, salt: salt).key(), h)
        XCTAssertThrowsError(try PlainPasscodeSalt.key(config: "", role: .presenter, secret: nil))
    }

    func testHashParseRejectsMalformedStrings() {
        let good = PasscodeHash.make(passcode: "pw", rounds: rounds, salt: salt)
        let parts = good.split(separator: "$").map(String.init)
        let bad: [(String, PasscodeHash.ParseError)] = [
            ("", .notAHash),
            ("pw", .notAHash),
            ("pbkdf2-sha1$10000$\(parts[2])$\(parts[3])", .notAHash),
            ("pbkdf2-sha256$10000$\(parts[2])", .notAHash),
            ("pbkdf2-sha256$10000$\(parts[2])$\(parts[3])$", .notAHash),
            ("pbkdf2-sha256$$\(parts[2])$\(parts[3])", .badRounds("")),
            ("pbkdf2-sha256$-5$\(parts[2])$\(parts[3])", .badRounds("-5")),
            ("pbkdf2-sha256$99$\(parts[2])$\(parts[3])", .badRounds("99")),
            ("pbkdf2-sha256$+10000$\(parts[2])$\(parts[3])", .badRounds("+10000")),
            ("pbkdf2-sha256$99999999999$\(parts[2])$\(parts[3])", .badRounds("99999999999")),
            ("pbkdf2-sha256$10000$!!!!$\(parts[3])", .badSalt),
            ("pbkdf2-sha256$10000$AQID$\(parts[3])", .badSalt),   // 3-byte salt
            ("pbkdf2-sha256$10000$\(parts[2].dropLast(2))$\(parts[3])", .badSalt),   // unpadded
            ("pbkdf2-sha256$10000$\(parts[2])$AAAA", .badKey),
            ("pbkdf2-sha256$10000$\(parts[2])$\(parts[3]) ", .badKey),
        ]
        for (s, expected) in bad {
            XCTAssertThrowsError(try PasscodeHash.parse(s), s) { XCTAssertEqual($0 as? PasscodeHash.ParseError, expected, s) }
        }
    }

    func testPossessionProof() {
        let file = Array("%PDF-1.7 hello".utf8)
        let p = PossessionProof.compute(challenge: challenge, file: file)
        var incremental = PossessionProof(challenge: challenge)
        incremental.update(file.prefix(4)); incremental.update(file.dropFirst(4))
        XCTAssertEqual(incremental.finalize(), p)
        XCTAssertTrue(PossessionProof.matches(p, expected: PossessionProof.compute(challenge: challenge, file: file)))
        var other = challenge; other[0] ^= 1
        XCTAssertFalse(PossessionProof.matches(p, expected: PossessionProof.compute(challenge: other, file: file)))
        XCTAssertFalse(PossessionProof.matches(p, expected: PossessionProof.compute(challenge: challenge, file: file + [0])))
        XCTAssertEqual(ContentHasher.id(of: Array("abc".utf8)).hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}

final class ThrottleTests: XCTestCase {
    func testFiveFailuresThenGrowingDelay() {
        var t = AuthThrottle()
        let k = AuthThrottle.key(address: "10.0.0.5", role: .presenter)
        for i in 0..<5 {
            XCTAssertEqual(t.check(k, now: Double(i)), .allowed)
            t.recordFailure(k, now: Double(i))
        }
        // 5 failures at 0...4: the next attempt must wait 2 s after the last.
        XCTAssertEqual(t.check(k, now: 5), .wait(seconds: 1))
        XCTAssertEqual(t.check(k, now: 6), .allowed)
        t.recordFailure(k, now: 6)
        XCTAssertEqual(t.check(k, now: 7), .wait(seconds: 3))   // 4 s after 6
        XCTAssertEqual(t.check(k, now: 10), .allowed)
        t.recordFailure(k, now: 10)
        XCTAssertEqual(t.check(k, now: 10), .wait(seconds: 8))
        t.recordFailure(k, now: 18)
        XCTAssertEqual(t.check(k, now: 18), .wait(seconds: 16))
        t.recordFailure(k, now: 34)
        XCTAssertEqual(t.check(k, now: 34), .wait(seconds: 32))
        XCTAssertEqual(t.failureCount(k, now: 34), 9)
        // Other sources and roles are not affected.
        XCTAssertEqual(t.check(AuthThrottle.key(address: "10.0.0.6", role: .presenter), now: 34), .allowed)
        XCTAssertEqual(t.check(AuthThrottle.key(address: "10.0.0.5", role: .moderator), now: 34), .allowed)
    }

    func testDelayIsCapped() {
        var t = AuthThrottle(freeFailures: 5, window: 1000, baseDelay: 2, maxDelay: 60)
        for i in 0..<20 { t.recordFailure("a", now: Double(i)) }
        XCTAssertEqual(t.check("a", now: 19), .wait(seconds: 60))
    }

    func testRecoversAfterTheWindow() {
        var t = AuthThrottle()
        for i in 0..<8 { t.recordFailure("a", now: Double(i)) }
        guard case .wait = t.check("a", now: 8) else { return XCTFail("should be throttled") }
        XCTAssertEqual(t.check("a", now: 68), .allowed)
        XCTAssertEqual(t.failureCount("a", now: 68), 0)
        // A full fresh budget of five.
        for i in 0..<4 { t.recordFailure("a", now: 68 + Double(i)) }
        XCTAssertEqual(t.check("a", now: 72), .allowed)
        t.recordFailure("a", now: 72)
        XCTAssertEqual(t.check("a", now: 72), .wait(seconds: 2))
    }

    func testSuccessClearsAndPruneForgets() {
        var t = AuthThrottle()
        for i in 0..<6 { t.recordFailure("a", now: Double(i)) }
        t.recordSuccess("a", now: 6)
        XCTAssertEqual(t.check("a", now: 6), .allowed)
        var small = AuthThrottle(maxTrackedSources: 3)
        for i in 0..<10 { small.recordFailure("s\(i)", now: Double(i)) }
        XCTAssertEqual(small.failureCount("s9", now: 9), 1)
        XCTAssertEqual(small.failureCount("s0", now: 9), 0, "oldest forgotten")
    }

    func testTooManyAttemptsMessageRoundsUp() {
        guard
            case .wait(let s) = {
                var t = AuthThrottle(); for i in 0..<9 { t.recordFailure("a", now: Double(i)) }; return t.check("a", now: 8.5)
            }()
        else { return XCTFail() }
        XCTAssertEqual(LecternError.tooManyAttempts(retryAfter: s).message, "Too many attempts — try again in 32 s.")
    }
}
