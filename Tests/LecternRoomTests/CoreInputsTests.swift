import LecternModel
import LecternProtocol
@testable import LecternRoom
import XCTest

/// The core's only inputs are its events with their times and the generator it was given:
/// the same seed and the same events give the same tokens, ids and epoch, and the wall
/// time a snapshot shows is the last event's, moved on by the monotonic time since.
final class CoreInputsTests: XCTestCase {
    typealias H = RoomCoreHarness

    /// Ana joins, takes the floor and allows the download of deck 1: what random values
    /// the core drew on the way.
    func drawn(seed: UInt64) -> (epoch: String, meeting: String, token: ResumeToken?, download: String?) {
        let h = H(floor: .open, catalog: [deck(1)], seed: seed)
        let hello = h.open(1, address: "10.0.0.2")
        var token: ResumeToken?
        for m in H.messages(to: 1, h.send(h.register(1, hello: hello, name: "Ana", role: .presenter), from: 1)) {
            if case .registerOK(let ok) = m { token = ok.resumeToken }
        }
        let ana = h.core.floor.deviceID(forConnection: 1) ?? 0
        h.send(.floorRequest, from: 1, device: ana)
        h.own(cid(1), from: 1, device: ana)
        h.shown(h.send(.present(content: cid(1), page: 1), from: 1, device: ana))
        h.send(.audienceSet(.allowDownload), from: 1, device: ana)
        let s = h.core.snapshot(now: h.now)
        return (s.epoch ?? "", s.meeting ?? "", token, s.audience?.downloadURL)
    }

    func testTheSameSeedDrawsTheSameTokensAndAnotherSeedOthers() {
        let a = drawn(seed: 7), b = drawn(seed: 7), c = drawn(seed: 8)
        XCTAssertNotNil(a.token)
        XCTAssertNotNil(a.download)
        XCTAssertEqual(a.epoch, b.epoch)
        XCTAssertEqual(a.meeting, b.meeting)
        XCTAssertEqual(a.token, b.token)
        XCTAssertEqual(a.download, b.download)
        XCTAssertNotEqual(a.epoch, c.epoch)
        XCTAssertNotEqual(a.meeting, c.meeting)
        XCTAssertNotEqual(a.token, c.token)
        XCTAssertNotEqual(a.download, c.download)
        XCTAssertEqual(a.epoch.count, 16, "64 bits in hex (§14.1)")
        XCTAssertEqual(a.meeting.count, 32)
    }

    func testTheWallTimeComesWithTheEventAndASnapshotMovesItOnByTheMonotonicTime() throws {
        let h = H(floor: .open)
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        h.send(.timer(TimerCommand(action: .start, mode: .elapsed, value: 0)), from: 1, device: ana)
        // The wall clock jumps (NTP) without an event: the core can't know yet.
        h.wall.seconds += 3600
        h.now += 10
        XCTAssertEqual(h.core.snapshot(now: h.now).console?.timer.elapsedMs, 10_000, "the last event's wall time, moved on by 10 s")
        // The next event brings it: the elapsed timer now shows the jump.
        let pushed = H.states(to: 1, h.send(.stateRequest, from: 1, device: ana))
        XCTAssertEqual(pushed.last?.console?.timer.elapsedMs, 3_600_000)
    }
}
