import Foundation
import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// The wall's arrangement survives a restart (docs/protocol.md §9.7, §14.4): the saved state
/// keeps the layout, each pane's page and its driver after every change; a core started on
/// it has the same wall, and each pane's driver resumes its pane in the grace period.
final class RoomCoreWallRestoreTests: XCTestCase {
    typealias H = RoomCoreHarness

    static func persisted(_ effects: [RoomEffect]) -> [SavedState] {
        effects.compactMap { if case .persist(let s) = $0 { return s } else { return nil } }
    }

    /// The chair (1), Ana (2) with the floor on deck 1 page 2, Ben (3) driving pane 1 of a
    /// quad with deck 2 page 3, pane 3 showing deck 1 page 5 (put there by the chair, driven by nobody).
    func arranged() -> (H, ben: RegisterOK, saved: SavedState) {
        let h = H(floor: .moderated, catalog: [deck(1), deck(2)], configure: { $0.gracePeriod = 30 })
        let mod = h.join(1, name: "Chair", role: .moderator)
        let ana = h.join(2, name: "Ana")
        h.send(.floorRequest, from: 2, device: ana)
        h.send(.floorModerate(action: .grant, target: ana), from: 1, device: mod)
        h.own(cid(1), from: 2, device: ana)
        h.shownAll(h.send(.present(content: cid(1), page: 2), from: 2, device: ana))
        let hello = h.open(3)
        let proof = RegisterProof.compute(
            passcode: H.presenterPasscode, parameters: hello.parameters(for: .presenter)!, challenge: hello.challenge, role: .presenter, name: "Ben",
            resumeToken: nil)
        guard case .registerOK(let ben)? = H.messages(to: 3, h.send(.register(RegisterRequest(role: .presenter, proof: proof, resumeToken: nil, name: "Ben")), from: 3)).first
        else { fatalError("Ben did not register") }
        h.own(cid(2), from: 3, device: ben.deviceID)
        h.shownAll(h.send(.layoutSet(.quad), from: 1, device: mod))
        h.shownAll(h.send(.paneSet(PaneRequest(pane: 1, .assign(ben.deviceID))), from: 1, device: mod))
        h.shownAll(h.send(.present(content: cid(2), page: 3), from: 3, device: ben.deviceID))
        h.shownAll(h.send(.paneSet(PaneRequest(pane: 3, .present(content: cid(1), page: 5))), from: 1, device: mod))
        let saved = Self.persisted(h.log).last!
        return (h, ben, saved)
    }

    func testEveryChangeOfThePanesIsSavedWithTheirDrivers() throws {
        let (_, ben, saved) = arranged()
        let wall = try XCTUnwrap(saved.wall)
        XCTAssertEqual(wall.layout, .quad)
        XCTAssertEqual(wall.panes.map(\.main), [true, false, false, false])
        XCTAssertEqual(wall.panes[1].content, cid(2).hex)
        XCTAssertEqual(wall.panes[1].page, 3)
        XCTAssertEqual(wall.panes[1].driver?.id, ben.deviceID)
        XCTAssertEqual(wall.panes[1].driver?.name, "Ben")
        XCTAssertEqual(wall.panes[1].driver?.token, ben.resumeToken)
        XCTAssertEqual(wall.panes[3].content, cid(1).hex)
        XCTAssertEqual(wall.panes[3].page, 5)
        XCTAssertNil(wall.panes[3].driver)
        XCTAssertEqual(wall.panes[2], SavedWall.Pane(main: false), "an empty pane")
        XCTAssertEqual(saved.content, cid(1).hex, "the main pane's screen is the state's own")
        XCTAssertEqual(saved.page, 2)
        // One full pane again: nothing of the wall is saved.
        let h = H(floor: .moderated, catalog: [deck(1)])
        let mod = h.join(1, name: "Chair", role: .moderator)
        h.shownAll(h.send(.layoutSet(.split), from: 1, device: mod))
        XCTAssertNotNil(Self.persisted(h.log).last?.wall)
        h.shownAll(h.send(.layoutSet(.full), from: 1, device: mod))
        XCTAssertNil(Self.persisted(h.log).last?.wall)
    }

    func testARestartedRoomHasTheSameWallAndTheDriverResumesItsPane() throws {
        let (_, ben, saved) = arranged()
        // Through the file, as a restart reads it.
        let file = SavedStateFile.read(try JSONEncoder().encode(saved))
        XCTAssertEqual(file.lost, [])
        let state = try XCTUnwrap(file.state)
        let h = H(floor: .moderated, catalog: [deck(1), deck(2)], configure: { $0.gracePeriod = 30 })
        let catalog = ContentCatalog([deck(1), deck(2)])
        XCTAssertEqual(
            state.wall?.plan(main: page(1, 2), whiteboards: nil, in: catalog),
            WallPlan(layout: .quad, panes: [.scene(page(1, 2)), .scene(page(2, 3)), .scene(.idle), .scene(page(1, 5))]),
            "what the service shows before the room runs")
        let restored = h.core.restore(state, screen: state.screen(in: catalog), now: h.now, wall: h.wall.seconds)
        XCTAssertEqual(H.shows(restored), [], "the stage shows the wall already: nothing asked of it")
        XCTAssertEqual(RoomCoreLayoutTests.walls(restored), [])
        XCTAssertEqual(Self.persisted(restored).last?.wall, saved.wall, "saved again as it was")
        let s = h.core.snapshot(now: h.now)
        XCTAssertEqual(s.layout?.kind, .quad)
        XCTAssertEqual(s.layout?.panes.map(\.screen.page), [2, 3, 0, 5])
        XCTAssertEqual(s.layout?.panes[1].driver, ben.deviceID)
        XCTAssertEqual(s.layout?.panes[1].graceRemainingMs, 30_000)
        XCTAssertEqual(s.devices.first { $0.id == ben.deviceID }?.connected, false)
        // Ben comes back with his token: his id and pane; his next turns pane 1's page.
        let hello = h.open(7)
        let proof = RegisterProof.compute(
            passcode: H.presenterPasscode, parameters: hello.parameters(for: .presenter)!, challenge: hello.challenge, role: .presenter, name: "Ben",
            resumeToken: ben.resumeToken)
        let back = H.messages(to: 7, h.send(.register(RegisterRequest(role: .presenter, proof: proof, resumeToken: ben.resumeToken, name: "Ben")), from: 7))
        guard case .registerOK(let again)? = back.first else { return XCTFail("\(back)") }
        XCTAssertTrue(again.resumed)
        XCTAssertEqual(again.deviceID, ben.deviceID)
        let next = h.send(.control(.next), from: 7, device: again.deviceID)
        XCTAssertEqual(
            RoomCoreLayoutTests.walls(next), [WallPlan(layout: .quad, panes: [.scene(page(1, 2)), .scene(page(2, 4)), .scene(.idle), .scene(page(1, 5))])])
        XCTAssertEqual(H.replies(to: 7, h.shownAll(next)), [.controlOK], "his own deck: he still owns it")
    }

    func testARestartedPaneWhoseDriverNeverComesBackIsEmptied() throws {
        let (_, ben, saved) = arranged()
        let h = H(floor: .moderated, catalog: [deck(1), deck(2)], configure: { $0.gracePeriod = 30 })
        _ = h.core.restore(saved, screen: saved.screen(in: ContentCatalog([deck(1), deck(2)])), now: h.now, wall: h.wall.seconds)
        h.now += 30
        let expired = h.handle(.wake)
        // Ana (the floor's holder) and Ben were both waiting: the floor's page and Ben's go;
        // pane 3, nobody's, stays.
        XCTAssertEqual(
            RoomCoreLayoutTests.walls(expired).last, WallPlan(layout: .quad, panes: [.scene(.idle), .scene(.idle), .scene(.idle), .scene(page(1, 5))]))
        XCTAssertNil(h.core.snapshot(now: h.now).layout?.panes[1].driver)
        _ = ben
    }

    /// A clip playing in a pane other than the main one (§9.7) is saved with its position,
    /// paused or not, and after a restart plays again in that pane from there, paused if it
    /// was (its sound aside: the main pane's clip, if any, has the sound after a restart).
    func testAPanesClipIsSavedAndPlaysAgainInItsPaneFromWhereItWas() throws {
        let pc = RoomCorePaneClipTests(name: "helper", testClosure: { _ in })
        let (h, _, _, ben, _) = pc.splitRoom()
        let serial = pc.benPlays(h, ben)
        h.send(.clipPause, from: 3, device: ben)
        h.now += 1
        h.handle(.clipProgressed(serial: serial, ClipProgress(state: .paused, position: 4.5, presented: 135)))
        let saved = try XCTUnwrap(Self.persisted(h.log).last)
        XCTAssertEqual(saved.wall?.panes[1].clip, SavedClip(content: cid(4).hex, position: 4.5, paused: true, loop: false))
        XCTAssertNil(saved.clip, "the main pane plays nothing")

        let again = H(floor: .moderated, catalog: [deck(1), deck(2), RoomCorePaneClipTests.clip(4), RoomCorePaneClipTests.clip(5)])
        let restored = again.core.restore(saved, screen: saved.screen(in: ContentCatalog([deck(1), deck(2)])), now: again.now, wall: again.wall.seconds)
        XCTAssertEqual(H.clipWork(restored).filter { if case .openClip = $0 { return true } else { return false } }, [.openClip(serial: 1, content: cid(4).hex)])
        XCTAssertEqual(Self.persisted(restored).last?.wall?.panes[1].clip, saved.wall?.panes[1].clip, "until it plays, what was saved stays saved")
        let opened = again.handle(.clipOpened(serial: 1, .success(RoomCorePaneClipTests.facts)))
        let steering = H.clipWork(opened).filter { if case .clipSound = $0 { return false } else { return true } }
        XCTAssertEqual(steering, [.steerClip(serial: 1, .seek(4.5)), .steerClip(serial: 1, .pause), .playClip(serial: 1, loop: false, layout: .split, pane: 1)])
        XCTAssertEqual(H.walls(opened).last?.panes[1], .clip(serial: 1), "in its pane")
        let s = again.core.snapshot(now: again.now)
        XCTAssertEqual(s.layout?.panes[1].screen.clip?.positionMs, 4500)
        XCTAssertEqual(s.layout?.panes[1].screen.clip?.state, .paused)
        XCTAssertNil(s.screen.clip)
    }

    /// A file the service could not have written (two main panes, a pane count the layout
    /// doesn't have, an unknown layout, a deck gone from the store) restores what it can.
    func testAnOddOrDamagedWallRestoresWhatItCan() throws {
        let main = SavedWall.Pane(main: true)
        let other = SavedWall.Pane(main: false, content: cid(2).hex, page: 3)
        XCTAssertFalse(SavedWall(layout: .split, panes: [main, main]).isWellFormed)
        XCTAssertFalse(SavedWall(layout: .quad, panes: [main, other]).isWellFormed)
        XCTAssertFalse(SavedWall(layout: .full, panes: [main]).isWellFormed)
        let twice = SavedState.Holder(id: 4, name: "Ben", role: "presenter", resumeToken: String(repeating: "ab", count: 16))
        var a = other, b = other
        a.driver = twice
        b.driver = twice
        XCTAssertFalse(SavedWall(layout: .quad, panes: [main, a, b, other]).isWellFormed, "one device drives one pane")
        XCTAssertTrue(SavedWall(layout: .split, panes: [other, main]).isWellFormed)

        var state = SavedState(screen: .idle, floor: Floor(config: FloorConfig(floorMode: .open)))
        state.wall = SavedWall(layout: .split, panes: [main, main])
        let h = H(floor: .open, catalog: [deck(2)])
        _ = h.core.restore(state, screen: nil, now: h.now, wall: h.wall.seconds)
        XCTAssertEqual(h.core.snapshot(now: h.now).layout?.kind, .full, "not a wall the service writes: one pane")

        // The deck of a pane gone from the store: the pane comes back empty.
        state.wall = SavedWall(layout: .split, panes: [main, other])
        let gone = H(floor: .open, catalog: [])
        _ = gone.core.restore(state, screen: nil, now: gone.now, wall: gone.wall.seconds)
        XCTAssertEqual(gone.core.snapshot(now: gone.now).layout?.panes.map(\.screen.page), [0, 0])
        XCTAssertEqual(gone.core.snapshot(now: gone.now).layout?.kind, .split)

        // An unknown layout in the file loses only the wall (logged), not the rest.
        let json = #"{"content":null,"page":0,"blank":"none","wall":{"layout":"hexagon","panes":[]},"timer":null}"#
        let read = SavedStateFile.read(Data(json.utf8))
        XCTAssertEqual(read.lost.map(\.part), ["wall"])
        XCTAssertNotNil(read.state)
        XCTAssertNil(read.state?.wall)
    }
}
