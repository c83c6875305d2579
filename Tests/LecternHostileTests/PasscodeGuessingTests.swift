import Glibc
import LecternClient
import LecternProtocol
import LecternTestSupport
import XCTest

/// Guessing the moderator passcode from many addresses: the per-address throttle let each
/// address make ~9 guesses a minute (20 addresses: 180). Now the whole room has a budget
/// per role, and the real moderator still gets in within seconds once guessing stops.
final class PasscodeGuessingTests: XCTestCase {
    /// One register with a wrong proof from `source`: the error it gets.
    func guess(_ h: ServiceHarness, from source: String) throws -> ErrorCode? {
        let fd = try h.raw(from: source)
        defer { fd.close() }
        let hello = fd.read(timeout: 5) { !Hostile.messages($0).isEmpty }
        guard case .hello(let h)? = Hostile.messages(hello).first else { throw Fixtures.ToolError(description: "no hello") }
        let proof = RegisterProof.compute(key: randomBytes(32), challenge: h.challenge, role: .moderator, name: "guess", resumeToken: nil)
        fd.sendNow(Message.register(RegisterRequest(role: .moderator, proof: proof, resumeToken: nil, name: "guess")).encode(tag: 7, deviceID: 0xFF))
        let reply = fd.read(timeout: 5) { !Hostile.messages($0).isEmpty }
        return Hostile.messages(reply).first?.error?.code
    }

    func testManyAddressesDontMultiplyTheGuessingRate() throws {
        let h = try ServiceHarness()
        // 2 guesses from each of 25 addresses: never throttled per address.
        var wrong = 0, throttled = 0
        for i in 0..<50 {
            switch try guess(h, from: "127.0.0.\(10 + i % 25)") {
            case .wrongPasscode?: wrong += 1
            case .tooManyAttempts?: throttled += 1
            case let other: XCTFail("unexpected answer \(String(describing: other))")
            }
        }
        print("guessing from 25 addresses: \(wrong) checked, \(throttled) throttled")
        XCTAssertLessThanOrEqual(wrong, 34, "the room's budget (30 at once) did not hold")
        XCTAssertGreaterThanOrEqual(throttled, 16)

        // The guessing stops: the real moderator, from an address of their own, gets in
        // within seconds (one attempt a second, as a person retrying would).
        var tries = 0
        try eventually("the moderator getting in after the guessing stopped (\(tries) tries)", timeout: 8, interval: 1) {
            tries += 1
            let c = try h.connect()
            defer { c.close() }
            _ = try c.register(name: "Mod", role: .moderator, passcode: ServiceHarness.moderatorPass)
            return true
        }
    }
}
