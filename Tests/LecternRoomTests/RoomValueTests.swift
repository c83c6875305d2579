import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// The room's state is a value (issue 30): a copy is a room of its own, and the same events
/// with the same seeded generator make the same room.
final class RoomValueTests: XCTestCase {
    typealias H = RoomCoreHarness

    /// A room with two presenters in, one holding the floor with a deck on the wall.
    private func meetingUnderWay(seed: UInt64) -> H {
        let h = H(floor: .open, catalog: [deck(1)], seed: seed, configure: { $0.gracePeriod = 10 })
        let ana = h.join(1, name: "Ana", address: "10.0.0.2")
        h.join(2, name: "Ben", address: "10.0.0.3")
        h.send(.floorRequest, from: 1, device: ana)
        h.own(cid(1), from: 1, device: ana)
        h.shown(h.send(.present(content: cid(1), page: 1), from: 1, device: ana))
        h.now += 1
        h.handle(.tick)
        return h
    }

    func testAnEventAppliedToACopyLeavesTheOriginalAsItWas() {
        let h = meetingUnderWay(seed: 7)
        let original = h.core
        var copy = h.core
        XCTAssertEqual(copy, original)

        // Ben takes the floor in the copy (an open floor goes to the newest request).
        let ben = h.core.snapshot(now: h.now).devices.first { $0.name == "Ben" }!.id
        let bytes = Message.floorRequest.encode(tag: 9, deviceID: ben)
        let frame = WireFrame(header: try! FrameHeader.decode(bytes), body: Array(bytes[FrameHeader.size...]))
        let effects = copy.handle(.frame(2, frame), now: h.now, wall: h.wall.seconds)
        XCTAssertEqual(H.replies(to: 2, effects), [.floorAck(.holder)])

        XCTAssertEqual(copy.snapshot(now: h.now).floor.holder, ben)
        XCTAssertNotEqual(copy, original, "the copy changed")
        XCTAssertEqual(h.core, original, "the original did not")
        let ana = h.core.snapshot(now: h.now).devices.first { $0.name == "Ana" }!.id
        XCTAssertEqual(h.core.snapshot(now: h.now).floor.holder, ana, "Ana still holds the floor in the original")
    }

    func testTwoRoomsFedTheSameEventsWithTheSameSeedAreEqual() {
        let a = meetingUnderWay(seed: 42), b = meetingUnderWay(seed: 42)
        XCTAssertEqual(a.core, b.core)
        XCTAssertEqual(a.log, b.log, "the same effects, tokens and ids included")

        // A room drawn from another seed differs: its tokens, meeting id and epoch.
        let c = meetingUnderWay(seed: 43)
        XCTAssertNotEqual(a.core, c.core)
        XCTAssertNotEqual(a.core.snapshot(now: a.now).meeting, c.core.snapshot(now: c.now).meeting)

        // And they stay equal event after event, wakes and ticks included.
        for h in [a, b] {
            h.handle(.closed(1))
            h.now += 11
            h.handle(.wake)
            h.handle(.tick)
        }
        XCTAssertEqual(a.core, b.core)
        XCTAssertEqual(a.core.snapshot(now: a.now).floor.holder, nil, "the grace period ran out")
    }
}
