import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternTestSupport
import XCTest

/// 250 viewers at once on top of the floor (issue 17, §24.8), over real sockets with the
/// default connection limits (but the per-address one: every viewer here is 127.0.0.1): all
/// are admitted, the 251st is told the audience is full, and presenters and the moderator
/// still join and drive while the audience is full.
final class AudienceCapacityTests: XCTestCase {
    func roomKey(_ h: ServiceHarness) throws -> [UInt8] {
        let c = try h.connect()
        defer { c.close() }
        let p = c.hello.parameters(for: .viewer)!
        return PasscodeHash.deriveKey(passcode: ServiceHarness.presenterPass, salt: p.salt, rounds: p.rounds)
    }

    func testTwoHundredFiftyViewersAreAdmittedAndPresentersStillJoin() throws {
        let h = try ServiceHarness(floor: .open) {
            $0.maxConnectionsPerAddress = 2048
            $0.audienceNewPerAddress = AudienceLimits.maxViewers   // the whole audience from one address, as behind one NAT
        }
        XCTAssertEqual(h.service.config.connectionsReservedForDevices, 512, "the default reserve holds 254 devices and 250 viewers")
        XCTAssertGreaterThanOrEqual(h.service.config.connectionsReservedForDevices, 254 + AudienceLimits.maxViewers)
        let key = try roomKey(h)
        var viewers: [LecternConnection] = []
        for _ in 0..<AudienceLimits.maxViewers {
            let c = try h.connect()
            try c.register(name: "", role: .viewer, key: key)
            viewers.append(c)
        }
        let late = try h.connect()
        XCTAssertServerError(.audienceFull, try late.register(name: "", role: .viewer, key: key))

        // The floor is still open to presenters and the moderator.
        let a = try h.presenter("Ana Presenter")
        let b = try h.presenter("Ben Presenter")
        let m = try h.moderator()
        _ = try a.requestFloor()
        let pdf = try Fixtures.numberedDeck(count: 3, in: Fixtures.tempDir("capacity"))
        try a.present(try a.upload(path: pdf).content, page: 1)
        try a.control(.next)
        XCTAssertEqual(try m.state().audience?.viewers, AudienceLimits.maxViewers)
        XCTAssertEqual(try b.state().devices.count, 3, "two presenters and the moderator, no viewer among the devices")
        for v in [viewers[0], viewers[124], viewers[249]] {
            XCTAssertEqual(try v.waitForState { $0.screen.page == 2 }.screen.page, 2, "viewers follow with a full audience")
        }
        for v in viewers { v.close() }
    }
}
