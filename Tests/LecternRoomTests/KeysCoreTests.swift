import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// Keys derived off the loop come back as `.keysDerived`: the newest apply to the next
/// registrations; a derivation that finishes after a newer one changes nothing.
final class KeysCoreTests: XCTestCase {
    typealias H = RoomCoreHarness

    func keys(_ passcode: String, serial: UInt64) -> RoomCore.Keys {
        var k = RoomCore.Keys(
            presenter: PasscodeHash.derive(passcode: passcode, rounds: 10_000, salt: Array(repeating: UInt8(serial), count: 16)), moderator: H.moderatorKey)
        k.serial = serial
        return k
    }

    func testNewerKeysApplyToTheNextRegistrationAndOlderOnesAreDropped() {
        let h = H(floor: .open)
        h.join(1, name: "Before")   // with the keys the room started with
        XCTAssertEqual(h.handle(.keysDerived(keys("second-pass", serial: 2))), [.keysInForce(serial: 2)])
        XCTAssertFalse(
            h.handle(.keysDerived(keys("first-pass", serial: 1))).contains { if case .keysInForce = $0 { true } else { false } },
            "derived for an older reload: dropped")
        let hello = h.open(2)
        XCTAssertEqual(hello.presenter?.salt, Array(repeating: 2, count: 16), "hello announces the keys in force")
        let old = h.send(h.register(2, hello: hello, name: "Old", role: .presenter, passcode: H.presenterPasscode), from: 2)
        XCTAssertTrue(H.messages(to: 2, old).contains { if case .registerFailed(let e) = $0 { e.code == .wrongPasscode } else { false } }, "\(H.messages(to: 2, old))")
        let hello3 = h.open(3)
        let new = h.send(h.register(3, hello: hello3, name: "New", role: .presenter, passcode: "second-pass"), from: 3)
        XCTAssertTrue(H.messages(to: 3, new).contains { if case .registerOK = $0 { true } else { false } }, "\(H.messages(to: 3, new))")
    }
}
