import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// The output's state and the room's cross-fade in the core (docs/protocol.md §21): pure,
/// events in, effects out.
final class RoomCoreOutputTests: XCTestCase {
    let hd = OutputSnapshot(connected: true, mode: "1920x1080@60", width: 1920, height: 1080, name: "kms card0 HDMI-A-1")

    func testALostDisplayIsPushedToEveryoneAtOnceCountedAndLogged() {
        let h = RoomCoreHarness(floor: .open)
        h.handle(.outputChanged(hd))
        h.join(1, name: "Ana")
        h.join(2, name: "Chair", role: .moderator)
        var lost = hd
        lost.connected = false
        let effects = h.handle(.outputChanged(lost))
        for id: ConnectionID in [1, 2] {
            let s = RoomCoreHarness.states(to: id, effects)
            XCTAssertEqual(s.count, 1, "device \(id) gets the state at once")
            XCTAssertEqual(s.first?.output.connected, false)
            XCTAssertEqual(s.first?.output.losses, 1)
        }
        XCTAssertTrue(effects.contains { if case .log(.warning, let m) = $0 { m.contains("disconnected") } else { false } })
        XCTAssertTrue(h.handle(.outputChanged(lost)).isEmpty, "the same state again: nothing to push")
        let back = h.handle(.outputChanged(hd))
        XCTAssertEqual(
            RoomCoreHarness.states(to: 1, back).first?.output,
            OutputSnapshot(connected: true, mode: "1920x1080@60", width: 1920, height: 1080, name: "kms card0 HDMI-A-1", losses: 1))
        // A display that starts disconnected is not a loss.
        let cold = RoomCoreHarness(floor: .open)
        cold.handle(.outputChanged(lost))
        XCTAssertEqual(cold.core.snapshot(now: 0).output.losses, 0)
    }

    func testTheCrossFadeIsTheDriversChoiceAndGoesToTheStage() {
        let h = RoomCoreHarness(floor: .open) { $0.crossfadeMs = 300 }
        XCTAssertEqual(h.core.snapshot(now: 0).transitions.fallbackFadeMs, 300)
        let ana = h.join(1, name: "Ana")
        let bo = h.join(2, name: "Bo")
        XCTAssertEqual(RoomCoreHarness.errorCode(to: 2, h.send(.control(.transitions(fadeMs: 500)), from: 2, device: bo)), .noFloor)
        h.send(.floorRequest, from: 1, device: ana)
        let effects = h.send(.control(.transitions(fadeMs: 500)), from: 1, device: ana)
        XCTAssertEqual(RoomCoreHarness.replies(to: 1, effects).first, .controlOK)
        XCTAssertTrue(effects.contains(.setFallbackTransition(.fade(0.5))))
        XCTAssertEqual(RoomCoreHarness.states(to: 2, effects).first?.transitions.fallbackFadeMs, 500)
        let off = h.send(.control(.transitions(fadeMs: 0)), from: 1, device: ana)
        XCTAssertTrue(off.contains(.setFallbackTransition(nil)))
    }
}
