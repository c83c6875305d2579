import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// Live sharing's room rules (docs/protocol.md §29.3–§29.5): a share goes up under the
/// floor's rules exactly as present does, waits for the moderator where present would need
/// the floor, pauses, stops, and ends when its pane is no longer its sharer's. Events in
/// with a hand-moved clock, effects asserted in order.
final class RoomCoreShareTests: XCTestCase {
    typealias H = RoomCoreHarness
    static let config = ShareConfig(codec: .h264, source: .screen, width: 1920, height: 1080, frameRate: 30, bitrate: 6_000_000)
    static let first = 1 << 30

    static func walls(_ effects: [RoomEffect]) -> [WallPlan] {
        effects.compactMap { if case .showWall(_, let p) = $0 { return p } else { return nil } }
    }

    static func shareWork(_ effects: [RoomEffect]) -> [RoomEffect] {
        effects.filter {
            switch $0 {
            case .shareStart, .shareRoute, .shareStop, .sharePicture: return true
            default: return false
            }
        }
    }

    func testAModeratedRoomsShareWaitsForTheModeratorThenGoesUpWithTheFloor() {
        let h = H(floor: .moderated)
        let mod = h.join(1, name: "Chair", role: .moderator)
        let ana = h.join(2, name: "Ana")
        let begin = h.send(.share(.begin(Self.config)), from: 2, tag: 9, device: ana)
        XCTAssertEqual(
            Self.shareWork(begin), [.shareStart(serial: Self.first, Self.config), .shareRoute(serial: Self.first, connection: 2, device: ana)])
        XCTAssertEqual(H.replies(to: 2, begin), [.share(.ready(ShareReady(status: .waiting, pane: nil, frameRate: 30, bitrate: 6_000_000)))])
        XCTAssertEqual(Self.walls(begin), [], "nothing reaches the wall before the moderator says so")
        let waiting = H.states(to: 1, begin).last?.shares
        XCTAssertEqual(waiting?.map(\.status), [.waiting])
        XCTAssertEqual(waiting?.first?.name, "Ana")
        XCTAssertEqual(waiting?.first?.pane, nil)

        // The moderator looks at it small, then approves it into the main pane.
        let look = h.send(.share(.picture(device: ana, maxWidth: 320, maxHeight: 180)), from: 1, tag: 10, device: mod)
        XCTAssertEqual(Self.shareWork(look), [.sharePicture(1, tag: 10, serial: Self.first, maxWidth: 320, maxHeight: 180)])
        let approve = h.send(.share(.moderate(device: ana, .approve)), from: 1, tag: 11, device: mod)
        XCTAssertEqual(H.replies(to: 1, approve), [.ok])
        XCTAssertEqual(H.messages(to: 2, approve).filter { if case .floorGranted = $0 { return true } else { return false } }.count, 1)
        XCTAssertTrue(H.replies(to: 2, approve).contains(.share(.ready(ShareReady(status: .live, pane: 0, frameRate: 30, bitrate: 6_000_000)))))
        XCTAssertEqual(Self.walls(approve).last, WallPlan(layout: .full, panes: [.share(serial: Self.first, paused: false)]))
        let live = H.states(to: 1, approve).last
        XCTAssertEqual(live?.shares?.first?.status, .live)
        XCTAssertEqual(live?.layout?.panes.first?.share, ana)
        XCTAssertEqual(live?.floor.holder, ana)
    }

    func testPauseHoldsTheLastPictureMarkedAndStopEndsIt() {
        let h = H(floor: .open)
        let ana = h.join(2, name: "Ana")
        let begin = h.send(.share(.begin(Self.config)), from: 2, device: ana)
        XCTAssertEqual(H.replies(to: 2, begin), [.share(.ready(ShareReady(status: .live, pane: 0, frameRate: 30, bitrate: 6_000_000)))])
        XCTAssertEqual(Self.walls(begin).last?.panes, [.share(serial: Self.first, paused: false)], "an open room: it takes the floor")
        let pause = h.send(.share(.control(.pause)), from: 2, tag: 20, device: ana)
        XCTAssertEqual(H.replies(to: 2, pause), [.ok])
        XCTAssertEqual(Self.walls(pause).last?.panes, [.share(serial: Self.first, paused: true)])
        XCTAssertEqual(H.states(to: 2, pause).last?.shares?.first?.status, .paused)
        XCTAssertEqual(Self.shareWork(pause), [], "the decoder and its last picture stay")
        let resume = h.send(.share(.control(.resume)), from: 2, tag: 21, device: ana)
        XCTAssertEqual(Self.walls(resume).last?.panes, [.share(serial: Self.first, paused: false)])
        let stop = h.send(.share(.control(.stop)), from: 2, tag: 22, device: ana)
        XCTAssertEqual(H.replies(to: 2, stop), [.ok], "no share-ended: the sharer stopped it")
        XCTAssertEqual(Self.shareWork(stop), [.shareStop(serial: Self.first)])
        XCTAssertEqual(H.shows(stop), [.idle], "the pane shows its screen again")
        XCTAssertNil(H.states(to: 2, stop).last?.shares)
        XCTAssertEqual(H.errorCode(to: 2, h.send(.share(.control(.stop)), from: 2, device: ana)), .noShare)
    }

    func testTheModeratorsEndAndAFloorWithdrawEachEndTheShareAndTellTheSharer() {
        let h = H(floor: .moderated)
        let mod = h.join(1, name: "Chair", role: .moderator)
        let ana = h.join(2, name: "Ana")
        h.send(.floorRequest, from: 2, device: ana)
        h.send(.floorModerate(action: .grant, target: ana), from: 1, device: mod)
        h.send(.share(.begin(Self.config)), from: 2, device: ana)
        let end = h.send(.share(.moderate(device: ana, .end)), from: 1, device: mod)
        XCTAssertEqual(H.replies(to: 2, end), [.share(.ended(.shareWithdrawn))])
        XCTAssertEqual(Self.shareWork(end), [.shareStop(serial: Self.first)])

        // Again, and this time the moderator takes the floor back.
        h.send(.share(.begin(Self.config)), from: 2, device: ana)
        let withdraw = h.send(.floorModerate(action: .withdraw, target: ana), from: 1, device: mod)
        XCTAssertTrue(H.replies(to: 2, withdraw).contains(.share(.ended(.shareReplaced))))
        XCTAssertEqual(Self.shareWork(withdraw), [.shareStop(serial: Self.first + 1)])
        XCTAssertEqual(H.shows(withdraw), [.idle], "the wall goes to what the floor change decides: the idle screen")
    }

    func testALostConnectionHoldsTheShareForTheGracePeriodAndAResumeGoesOn() {
        let h = H(floor: .open) { $0.gracePeriod = 30 }
        let ana = h.join(2, name: "Ana")
        h.send(.share(.begin(Self.config)), from: 2, device: ana)
        let lost = h.handle(.closed(2))
        XCTAssertEqual(Self.shareWork(lost), [.shareRoute(serial: Self.first, connection: nil, device: ana)])
        XCTAssertEqual(Self.walls(lost).last?.panes, [.share(serial: Self.first, paused: true)], "held, marked paused")
        XCTAssertEqual(h.core.snapshot(now: h.now).shares?.first?.status, .away)

        // Back within the grace period: the same share, from the new connection.
        h.now += 10
        let token = h.core.floor.devices[ana]!.resumeToken
        let hello = h.open(3)
        let proof = RegisterProof.compute(
            passcode: H.presenterPasscode, parameters: hello.parameters(for: .presenter)!, challenge: hello.challenge, role: .presenter,
            name: "Ana", resumeToken: token)
        h.send(.register(RegisterRequest(role: .presenter, proof: proof, resumeToken: token, name: "Ana")), from: 3)
        let again = h.send(.share(.begin(Self.config)), from: 3, device: ana)
        XCTAssertEqual(Self.shareWork(again), [.shareRoute(serial: Self.first, connection: 3, device: ana)])
        XCTAssertEqual(Self.walls(again).last?.panes, [.share(serial: Self.first, paused: false)])

        // Gone past the grace period: the share ends with the floor.
        h.handle(.closed(3))
        h.now += 31
        let expired = h.handle(.wake)
        XCTAssertEqual(Self.shareWork(expired), [.shareStop(serial: Self.first)])
    }

    func testOneSharePerPaneAndTheModeratorsShareTakesTheMainPane() {
        let h = H(floor: .moderated)
        let mod = h.join(1, name: "Chair", role: .moderator)
        let ana = h.join(2, name: "Ana")
        h.send(.floorRequest, from: 2, device: ana)
        h.send(.floorModerate(action: .grant, target: ana), from: 1, device: mod)
        h.send(.share(.begin(Self.config)), from: 2, device: ana)
        let chair = h.send(.share(.begin(Self.config)), from: 1, device: mod)
        XCTAssertTrue(H.replies(to: 2, chair).contains(.share(.ended(.shareReplaced))))
        XCTAssertEqual(Self.walls(chair).last?.panes, [.share(serial: Self.first + 1, paused: false)])
        let busy = h.send(.share(.begin(Self.config)), from: 2, device: ana)
        XCTAssertEqual(H.errorCode(to: 2, busy), .shareBusy)
    }

    func testAShareInOnePaneOfASplitLeavesTheOtherAndEndsWithItsPane() {
        let h = H(floor: .moderated, catalog: [deck(1)])
        let mod = h.join(1, name: "Chair", role: .moderator)
        let ana = h.join(2, name: "Ana")
        let ben = h.join(3, name: "Ben")
        h.send(.floorRequest, from: 2, device: ana)
        h.send(.floorModerate(action: .grant, target: ana), from: 1, device: mod)
        h.own(cid(1), from: 2, device: ana)
        h.shown(h.send(.present(content: cid(1), page: 2), from: 2, device: ana))
        h.send(.layoutSet(.split), from: 1, device: mod)
        h.send(.paneSet(PaneRequest(pane: 1, .assign(ben))), from: 1, device: mod)
        let begin = h.send(.share(.begin(Self.config)), from: 3, device: ben)
        XCTAssertEqual(H.replies(to: 3, begin), [.share(.ready(ShareReady(status: .live, pane: 1, frameRate: 30, bitrate: 6_000_000)))])
        XCTAssertEqual(Self.walls(begin).last, WallPlan(layout: .split, panes: [.scene(page(1, 2)), .share(serial: Self.first, paused: false)]))
        // Ana turns her page: Ben's share stays.
        let next = h.send(.control(.next), from: 2, device: ana)
        XCTAssertEqual(Self.walls(next).last, WallPlan(layout: .split, panes: [.scene(page(1, 3)), .share(serial: Self.first, paused: false)]))
        XCTAssertEqual(Self.shareWork(next), [])
        // The moderator makes the wall one pane: Ben's pane is gone, and his share with it.
        let full = h.send(.layoutSet(.full), from: 1, device: mod)
        XCTAssertTrue(H.replies(to: 3, full).contains(.share(.ended(.shareReplaced))))
        XCTAssertEqual(Self.shareWork(full), [.shareStop(serial: Self.first)])
    }

    func testAFailedStreamEndsTheShareWithItsError() {
        let h = H(floor: .open)
        let ana = h.join(2, name: "Ana")
        h.send(.share(.begin(Self.config)), from: 2, device: ana)
        let damaged = LecternError.shareDamaged("the decoder refused a picture")
        let failed = h.handle(.shareFailed(serial: Self.first, damaged))
        XCTAssertEqual(H.replies(to: 2, failed), [.share(.ended(damaged))])
        XCTAssertEqual(Self.shareWork(failed), [.shareStop(serial: Self.first)])
        XCTAssertEqual(H.shows(failed), [.idle])
    }

    func testOutOfLimitConfigsAndStrayFramesAreRefused() {
        let h = H(floor: .open)
        let ana = h.join(2, name: "Ana")
        var big = Self.config
        big.width = 16384
        big.height = 16384
        XCTAssertEqual(H.errorCode(to: 2, h.send(.share(.begin(big)), from: 2, device: ana)), .shareUnsupported)
        var fast = Self.config
        fast.frameRate = 240
        XCTAssertEqual(H.errorCode(to: 2, h.send(.share(.begin(fast)), from: 2, device: ana)), .shareUnsupported)
        var portrait = Self.config
        portrait.width = 1080
        portrait.height = 1920
        XCTAssertNil(portrait.check(), "a phone's portrait camera fits: 1920 on its long side, fewer pixels than 1920×1200")
        let stray = h.send(.share(.frame(ShareFrame(sequence: 0, timestamp: 0, key: true, data: [0, 0, 1, 0x65]))), from: 2, device: ana)
        XCTAssertEqual(H.errorCode(to: 2, stray), .noShare, "no share: the frame reached the room, which says so")
    }
}
