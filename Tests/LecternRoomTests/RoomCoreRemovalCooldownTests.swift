import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// A presenter the moderator removed can't join again at once from the same address under
/// the same name (config `remove_cooldown`); moderators and other people are not held back.
final class RoomCoreRemovalCooldownTests: XCTestCase {
    typealias H = RoomCoreHarness

    func testARemovedPresenterWaitsForTheCoolDown() {
        let h = H(configure: { $0.removeCooldown = 30 })
        let mod = h.join(1, name: "Mo", role: .moderator, address: "10.0.0.1")
        let ana = h.join(2, name: "Ana", address: "10.0.0.2")
        _ = h.send(.floorModerate(action: .kick, target: ana), from: 1, device: mod)
        h.now += 0.4
        let again = h.open(3, address: "10.0.0.2")
        let effects = h.send(h.register(3, hello: again, name: "Ana", role: .presenter), from: 3)
        XCTAssertEqual(H.errorCode(to: 3, effects), .removedCoolingDown)
        guard case .registerFailed(let e)? = H.replies(to: 3, effects).first else { return XCTFail("\(effects)") }
        XCTAssertEqual(e.message, "The moderator removed you from the room — you can join again in 30 s.")
        // Someone else at that address, or under another name, is not held back.
        let ben = h.open(4, address: "10.0.0.2")
        XCTAssertNil(H.errorCode(to: 4, h.send(h.register(4, hello: ben, name: "Ben", role: .presenter), from: 4)))
        // After the cool-down, Ana joins again.
        h.now += 30
        let later = h.open(5, address: "10.0.0.2")
        XCTAssertNil(H.errorCode(to: 5, h.send(h.register(5, hello: later, name: "Ana", role: .presenter), from: 5)))
    }

    func testNoCoolDownWhenItIsZeroAndNoneForModerators() {
        let h = H(configure: { $0.removeCooldown = 0 })
        let mod = h.join(1, name: "Mo", role: .moderator, address: "10.0.0.1")
        let ana = h.join(2, name: "Ana", address: "10.0.0.2")
        _ = h.send(.floorModerate(action: .kick, target: ana), from: 1, device: mod)
        let again = h.open(3, address: "10.0.0.2")
        XCTAssertNil(H.errorCode(to: 3, h.send(h.register(3, hello: again, name: "Ana", role: .presenter), from: 3)))

        let h2 = H(configure: { $0.removeCooldown = 60 })
        let m1 = h2.join(1, name: "Mo", role: .moderator, address: "10.0.0.1")
        let m2 = h2.join(2, name: "Max", role: .moderator, address: "10.0.0.3")
        _ = h2.send(.floorModerate(action: .kick, target: m2), from: 1, device: m1)
        let back = h2.open(3, address: "10.0.0.3")
        XCTAssertNil(H.errorCode(to: 3, h2.send(h2.register(3, hello: back, name: "Max", role: .moderator), from: 3)), "a moderator is not held back")
    }
}
