import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// The floor through the room: requests, the moderator, a holder who drops and resumes.
final class RoomCoreFloorTests: XCTestCase {
    typealias H = RoomCoreHarness

    func testModeratedRequestQueuesAndTheModeratorGrants() {
        let h = H()
        let mod = h.join(1, name: "Chair", role: .moderator)
        let ana = h.join(2, name: "Ana")
        XCTAssertEqual(H.replies(to: 2, h.send(.floorRequest, from: 2, device: ana)), [.floorAck(.queued(position: 1))])
        let effects = h.send(.floorModerate(action: .grant, target: ana), from: 1, device: mod)
        XCTAssertEqual(H.replies(to: 1, effects), [.ok])
        XCTAssertEqual(H.replies(to: 2, effects), [.floorGranted(reason: .granted, by: mod)])
        XCTAssertEqual(H.states(to: 2, effects).last?.floor.holder, ana)
    }

    func testOpenFloorGoesToTheNewestRequest() {
        let h = H(floor: .open)
        let ana = h.join(1, name: "Ana")
        let ben = h.join(2, name: "Ben")
        XCTAssertEqual(H.replies(to: 1, h.send(.floorRequest, from: 1, device: ana)), [.floorAck(.holder)])
        let effects = h.send(.floorRequest, from: 2, device: ben)
        XCTAssertEqual(H.replies(to: 2, effects), [.floorAck(.holder)])
        XCTAssertTrue(H.replies(to: 1, effects).contains { if case .floorWithdrawn = $0 { return true } else { return false } })
    }

    /// A holder whose connection drops keeps the floor for the grace period: the core asks
    /// to be woken at its end, and then the screen goes idle.
    func testAHolderWhoDropsIsWaitedForThenTheScreenGoesIdle() {
        let h = H(floor: .open, catalog: [deck(1)], configure: { $0.gracePeriod = 10 })
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        h.own(cid(1), from: 1, device: ana)
        h.shown(h.send(.present(content: cid(1), page: 1), from: 1, device: ana))
        let dropped = h.handle(.closed(1))
        XCTAssertTrue(dropped.contains(.wake(at: h.now + 10)))
        XCTAssertTrue(H.work(dropped).isEmpty, "the slide stays")
        h.now += 10
        XCTAssertEqual(H.shows(h.handle(.wake)), [.idle])
    }
}
