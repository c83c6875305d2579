import Dispatch
import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol
@testable import LecternService
import LecternTestSupport
import XCTest

/// A reload with new plain passcodes derives their keys (210,000 PBKDF2 rounds each) off
/// the room's event loop: pings on a real TLS socket against the in-process service are
/// answered while the keys are derived, and the new keys come in force after.
final class KeyDerivationOffTheLoopTests: XCTestCase {
    /// One ping's round trip on `socket`, in seconds.
    func ping(_ socket: RawSocket, _ nonce: UInt32) throws -> Double {
        let start = MonotonicClock.now()
        XCTAssertTrue(socket.send(Message.ping(nonce: nonce).encode(tag: 1, deviceID: ProtocolLimits.unregisteredID)))
        var decoder = FrameDecoder()
        var answered = false
        _ = socket.read(timeout: 10) { bytes in
            decoder = FrameDecoder()
            for f in (try? decoder.decode(bytes)) ?? [] {
                if case .pong(let n)? = try? Message.decode(f, sentBy: .server), n == nonce { answered = true }
            }
            return answered
        }
        XCTAssertTrue(answered, "no pong within 10 s")
        return MonotonicClock.now() - start
    }

    func testPingsAreAnsweredWhileANewPasscodesKeysAreDerived() throws {
        let h = try ServiceHarness(floor: .moderated)
        // One derivation, timed here (the same build on the same machine): the service
        // derives three (the presenter's, the moderator's, the audience's).
        let t0 = MonotonicClock.now()
        _ = PasscodeHash.derive(passcode: "timing", rounds: PasscodeHash.defaultRounds)
        let one = MonotonicClock.now() - t0
        let before = try h.connect().hello
        let path = h.dir + "/lectern.toml"
        try """
        room = "Test Room"
        passcode = "a-new-presenter-passcode"
        moderator_passcode = "a-new-moderator-passcode"
        audience_passcode = "a-new-audience-passcode"
        data_dir = "\(h.dir)/data"
        """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        let socket = try h.raw()
        defer { socket.close() }
        _ = try ping(socket, 1)   // the connection is up

        // The reload on a thread of its own (SIGHUP's, in lecternd), pings from this one
        // for half of one derivation's time: the service is still deriving after it.
        let reloaded = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var problems: [ConfigProblem] = [ConfigProblem(line: nil, "not reloaded")]
        let service = h.service
        DispatchQueue.global().async {
            problems = service.reload(configPath: path)
            reloaded.signal()
        }
        var rtts: [Double] = []
        let end = MonotonicClock.now() + one / 2
        var nonce: UInt32 = 2
        repeat {
            rtts.append(try ping(socket, nonce))
            nonce += 1
        } while MonotonicClock.now() < end
        let during = try h.connect().hello
        XCTAssertEqual(during.moderator, before.moderator, "the pings ran while the new keys were derived: the old keys were still in force")
        rtts.sort()
        let median = rtts[rtts.count / 2], worst = rtts.last!
        print(
            "one derivation \(Int(one * 1000)) ms; \(rtts.count) pings during the re-keying: median \(String(format: "%.1f", median * 1000)) ms, worst \(String(format: "%.1f", worst * 1000)) ms"
        )
        XCTAssertLessThan(median, 0.020, "pings are answered within 20 ms while keys are derived")
        XCTAssertLessThan(worst, one, "no ping waited for a derivation")

        XCTAssertEqual(reloaded.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(problems, [])
        try eventually("the new keys in force", timeout: 30) { try h.connect().hello.moderator != before.moderator }
        let moderator = try h.connect()
        try moderator.register(name: "Mo", role: .moderator, passcode: "a-new-moderator-passcode")
    }
}
