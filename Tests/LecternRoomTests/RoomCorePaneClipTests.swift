import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// Clips in any pane of the wall (docs/protocol.md §9.7, §11, §23.1): a clip is one more
/// thing a pane shows; its device's clip commands act on the pane it drives; two panes play
/// at once and one has the sound; a pane handed to someone else never shows the previous
/// driver's clip. Events in (a hand-moved clock), effects asserted in order.
final class RoomCorePaneClipTests: XCTestCase {
    typealias H = RoomCoreHarness

    static func clip(_ byte: UInt8) -> ContentEntry {
        ContentEntry(id: cid(byte), name: "clip\(byte).mp4", kind: .clip, size: 5000, pages: 0, durationMs: 8000)
    }

    static let facts = ClipFacts(duration: 8, description: "h264 1920x1080, 8.0 s")

    /// A moderated room split in two: the chair (1); Ana (2) holds the floor and shows deck 1
    /// page 1 in the main pane (0), and owns clip 5; Ben (3) drives pane 1 and owns deck 2
    /// and clip 4; Cid (4) watches.
    func splitRoom() -> (H, mod: DeviceID, ana: DeviceID, ben: DeviceID, cid: DeviceID) {
        let h = H(floor: .moderated, catalog: [deck(1), deck(2), Self.clip(4), Self.clip(5)])
        let mod = h.join(1, name: "Chair", role: .moderator)
        let ana = h.join(2, name: "Ana")
        let ben = h.join(3, name: "Ben")
        let cid4 = h.join(4, name: "Cid")
        h.send(.floorRequest, from: 2, device: ana)
        h.send(.floorModerate(action: .grant, target: ana), from: 1, device: mod)
        h.own(cid(1), from: 2, device: ana)
        h.own(cid(5), from: 2, device: ana)
        h.own(cid(2), from: 3, device: ben)
        h.own(cid(4), from: 3, device: ben)
        h.shown(h.send(.present(content: cid(1), page: 1), from: 2, device: ana))
        h.shownAll(h.send(.layoutSet(.split), from: 1, device: mod))
        h.send(.paneSet(PaneRequest(pane: 1, .assign(ben))), from: 1, device: mod)
        return (h, mod, ana, ben, cid4)
    }

    /// Ben plays clip 4 in his pane; returns its serial.
    @discardableResult
    func benPlays(_ h: H, _ ben: DeviceID, loop: Bool = false) -> Int {
        let play = h.send(.clipPlay(content: cid(4), loop: loop), from: 3, tag: 30, device: ben)
        guard case .openClip(let serial, let content)? = H.work(play).first, content == cid(4).hex else {
            XCTFail("no openClip: \(play)")
            return -1
        }
        h.shownAll(h.handle(.clipOpened(serial: serial, .success(Self.facts))))
        return serial
    }

    func testAClipPlaysInThePaneItsDeviceDrivesAndThePageBesideItTurnsOn() {
        let (h, _, ana, ben, _) = splitRoom()
        let play = h.send(.clipPlay(content: cid(4), loop: false), from: 3, tag: 30, device: ben)
        XCTAssertEqual(H.work(play), [.openClip(serial: 1, content: cid(4).hex)], "no longer paneCannotPlay")
        XCTAssertEqual(H.replies(to: 3, play), [], "answered once it plays")
        let opened = h.handle(.clipOpened(serial: 1, .success(Self.facts)))
        XCTAssertEqual(H.replies(to: 3, opened), [.clipPlayOK])
        XCTAssertEqual(H.clipWork(opened), [.clipSound(serial: 1), .playClip(serial: 1, loop: false, layout: .split, pane: 1)])
        XCTAssertEqual(H.walls(opened), [WallPlan(layout: .split, panes: [.scene(page(1, 1)), .clip(serial: 1)])])
        h.shownAll(opened)
        // Ben's `screen` is his pane, with the clip; Ana's is hers, without it.
        let s = h.core.snapshot(now: h.now)
        XCTAssertEqual(s.layout?.panes[1].screen.clip?.state, .playing)
        XCTAssertEqual(s.layout?.panes[1].screen.content?.id, cid(4))
        XCTAssertNil(s.layout?.panes[0].screen.clip)
        XCTAssertNil(s.screen.clip, "the main pane (Ana's) plays nothing")
        XCTAssertEqual(s.layout?.soundPane, 1)
        XCTAssertEqual(H.states(to: 3, opened).last?.screen.clip?.durationMs, 8000)
        XCTAssertNil(H.states(to: 2, opened).last?.screen.clip)

        // Ben steers his clip; the progress shows in his pane.
        XCTAssertEqual(H.work(h.send(.clipPause, from: 3, device: ben)), [.steerClip(serial: 1, .pause)])
        XCTAssertEqual(H.errorCode(to: 3, h.send(.clipSeek(positionMs: 8001), from: 3, device: ben)), .seekOutOfRange)
        XCTAssertEqual(H.work(h.send(.clipSeek(positionMs: 2000), from: 3, device: ben)), [.steerClip(serial: 1, .seek(2))])
        h.now += 0.5
        let progressed = h.handle(.clipProgressed(serial: 1, ClipProgress(state: .paused, position: 2, presented: 60)))
        XCTAssertEqual(H.states(to: 3, progressed).last?.screen.clip?.positionMs, 2000)
        XCTAssertEqual(H.states(to: 3, progressed).last?.screen.clip?.state, .paused)
        // Ana's clip commands act on her pane, where nothing plays.
        XCTAssertEqual(H.errorCode(to: 2, h.send(.clipStop, from: 2, device: ana)), .noClip)

        // Ana turns her page: the clip in pane 1 is not touched.
        let next = h.send(.control(.next), from: 2, device: ana)
        XCTAssertEqual(H.work(next), [.showWall(op: lastOp(next), WallPlan(layout: .split, panes: [.scene(page(1, 2)), .clip(serial: 1)]))])
        XCTAssertEqual(H.replies(to: 2, h.shownAll(next)), [.controlOK])

        // Ben's pane had nothing under the clip: his next says so and the clip plays on.
        let benNext = h.send(.control(.next), from: 3, device: ben)
        XCTAssertEqual(H.work(benNext), [])
        XCTAssertEqual(H.errorCode(to: 3, benNext), .nothingOnScreen)
        // Anything shown in his pane ends the clip first, at once for the wall.
        let present = h.send(.present(content: cid(2), page: 1), from: 3, device: ben)
        XCTAssertEqual(H.work(present).first, .steerClip(serial: 1, .stop))
        XCTAssertEqual(H.walls(present), [WallPlan(layout: .split, panes: [.scene(page(1, 2)), .scene(page(2, 1))])])
        h.shownAll(present)
        XCTAssertNil(h.core.snapshot(now: h.now).layout?.panes[1].screen.clip)
        XCTAssertNil(h.core.snapshot(now: h.now).layout?.soundPane)
        // Its report of the end comes later and changes nothing.
        let ended = h.handle(.clipEnded(serial: 1, ClipEnding(how: .stopped, progress: ClipProgress(state: .stopped))))
        XCTAssertEqual(H.work(ended), [])
    }

    func testTwoClipsPlayAtOnceAndTheLatestPlayOrResumeHasTheSound() {
        let (h, _, ana, ben, _) = splitRoom()
        let benClip = benPlays(h, ben)
        XCTAssertEqual(h.core.snapshot(now: h.now).layout?.soundPane, 1)
        // Ana plays hers in the main pane: she takes the sound; both play.
        h.send(.clipPlay(content: cid(5), loop: true), from: 2, device: ana)
        let anaOpened = h.handle(.clipOpened(serial: 2, .success(Self.facts)))
        XCTAssertEqual(H.clipWork(anaOpened), [.clipSound(serial: 2), .playClip(serial: 2, loop: true, layout: .split, pane: 0)])
        XCTAssertEqual(H.walls(anaOpened), [WallPlan(layout: .split, panes: [.clip(serial: 2), .clip(serial: benClip)])])
        h.shownAll(anaOpened)
        XCTAssertEqual(h.core.snapshot(now: h.now).layout?.soundPane, 0)
        XCTAssertEqual(H.states(to: 3, anaOpened).last?.layout?.soundPane, 0, "every device is told which pane has the sound")
        // A pause keeps the sound where it is (the holder is silent while paused).
        XCTAssertEqual(H.work(h.send(.clipPause, from: 2, device: ana)), [.steerClip(serial: 2, .pause)])
        XCTAssertEqual(h.core.snapshot(now: h.now).layout?.soundPane, 0)
        // Ben's resume takes it, even of a clip that was playing.
        let resumed = h.send(.clipResume, from: 3, device: ben)
        XCTAssertEqual(H.work(resumed), [.steerClip(serial: benClip, .resume), .clipSound(serial: benClip)])
        XCTAssertEqual(H.states(to: 2, resumed).last?.layout?.soundPane, 1)
        // Ana's resume takes it back.
        XCTAssertEqual(H.work(h.send(.clipResume, from: 2, device: ana)), [.steerClip(serial: 2, .resume), .clipSound(serial: 2)])
        // The holder's clip ends: the sound goes to the other clip still playing.
        h.now += 8
        let ended = h.handle(.clipEnded(serial: 2, ClipEnding(how: .ended, progress: ClipProgress(state: .stopped))))
        XCTAssertEqual(H.clipWork(ended), [.clipSound(serial: benClip)])
        XCTAssertEqual(H.walls(ended), [WallPlan(layout: .split, panes: [.scene(page(1, 1)), .clip(serial: benClip)])], "Ana's page is back")
        XCTAssertEqual(h.core.snapshot(now: h.now).layout?.soundPane, 1)
        // The last one stops: no clip has the sound.
        XCTAssertEqual(H.work(h.send(.clipStop, from: 3, device: ben)), [.steerClip(serial: benClip, .stop)])
        let stopped = h.handle(.clipEnded(serial: benClip, ClipEnding(how: .stopped, progress: ClipProgress(state: .stopped))))
        XCTAssertEqual(H.clipWork(stopped), [.clipSound(serial: nil)])
        XCTAssertEqual(H.walls(stopped), [WallPlan(layout: .split, panes: [.scene(page(1, 1)), .scene(.idle)])])
        XCTAssertNil(h.core.snapshot(now: h.now).layout?.soundPane)
    }

    /// §9.7's privacy rule, for clips: a pane handed to someone else, or left by its driver,
    /// stops the clip at once (no later show of the wall has it), and a clip still being
    /// opened for the previous driver is never played.
    func testAPaneHandedToSomeoneElseNeverShowsThePreviousDriversClip() {
        let (h, mod, ana, ben, cid4) = splitRoom()
        let serial = benPlays(h, ben)
        let handed = h.send(.paneSet(PaneRequest(pane: 1, .assign(cid4))), from: 1, device: mod)
        XCTAssertEqual(H.clipWork(handed), [.steerClip(serial: serial, .stop), .clipSound(serial: nil)])
        XCTAssertEqual(H.walls(handed), [WallPlan(layout: .split, panes: [.scene(page(1, 1)), .scene(.idle)])])
        // Before the player reports the end, another change of the wall doesn't bring it back.
        let anaNext = h.send(.control(.next), from: 2, device: ana)
        XCTAssertEqual(H.walls(anaNext), [WallPlan(layout: .split, panes: [.scene(page(1, 2)), .scene(.idle)])])
        let cidState = H.states(to: 4, h.shownAll(handed + anaNext)).last
        XCTAssertEqual(cidState?.layout?.panes[1].driver, cid4)
        XCTAssertNil(cidState?.screen.clip, "Cid's screen is his pane: no clip of Ben's")
        XCTAssertNil(cidState?.screen.content)
        XCTAssertNil(cidState?.layout?.soundPane)
        let late = h.handle(.clipEnded(serial: serial, ClipEnding(how: .stopped, progress: ClipProgress(state: .stopped))))
        XCTAssertEqual(H.work(late), [], "the late end report changes nothing")
        // Cid can't steer what was Ben's.
        XCTAssertEqual(H.errorCode(to: 4, h.send(.clipPause, from: 4, device: cid4)), .noClip)

        // Cid starts one; the pane goes back to Ben before it opens: it is never played.
        h.own(cid(4), from: 4, device: cid4)
        let play = h.send(.clipPlay(content: cid(4), loop: false), from: 4, tag: 44, device: cid4)
        guard case .openClip(let opening, _)? = H.work(play).first else { return XCTFail("\(play)") }
        let back = h.send(.paneSet(PaneRequest(pane: 1, .assign(ben))), from: 1, device: mod)
        guard case .error(let e)? = H.replies(to: 4, back).first else { return XCTFail("\(H.replies(to: 4, back))") }
        XCTAssertEqual(e.code, .nothingOnScreen)
        XCTAssertEqual(H.work(h.handle(.clipOpened(serial: opening, .success(Self.facts)))), [.discardClip(serial: opening)])
        XCTAssertNil(h.core.snapshot(now: h.now).layout?.panes[1].screen.clip)

        // Ben plays again and leaves the room: his pane's clip stops with him.
        let again = benPlays(h, ben)
        let gone = h.handle(.closed(3))
        h.now += 120   // past the grace period (a pane's driver has none: it leaves at once)
        let left = gone + h.handle(.tick) + h.handle(.wake)
        XCTAssertTrue(H.clipWork(left).contains(.steerClip(serial: again, .stop)), "\(H.clipWork(left))")
        XCTAssertFalse(H.walls(left).contains { $0.panes.contains(.clip(serial: again)) })
    }

    func testTheModeratorPutsAClipInAPane() {
        let (h, mod, ana, _, cid4) = splitRoom()
        h.shownAll(h.send(.layoutSet(.quad), from: 1, device: mod))
        // Nobody drives pane 2: the moderator plays a clip there.
        let play = h.send(.panePlay(pane: 2, content: cid(4), loop: true), from: 1, tag: 70, device: mod)
        XCTAssertEqual(H.work(play), [.openClip(serial: 1, content: cid(4).hex)])
        let opened = h.handle(.clipOpened(serial: 1, .success(Self.facts)))
        XCTAssertEqual(H.replies(to: 1, opened), [.clipPlayOK])
        XCTAssertEqual(H.clipWork(opened), [.clipSound(serial: 1), .playClip(serial: 1, loop: true, layout: .quad, pane: 2)])
        XCTAssertEqual(H.walls(opened).last?.panes[2], .clip(serial: 1))
        h.shownAll(opened)
        XCTAssertEqual(h.core.snapshot(now: h.now).layout?.panes[2].screen.clip?.loop, true)
        // Only the moderator; only a clip; only a pane the layout has.
        XCTAssertEqual(H.errorCode(to: 2, h.send(.panePlay(pane: 2, content: cid(5), loop: false), from: 2, device: ana)), .moderatorOnly)
        XCTAssertEqual(H.errorCode(to: 1, h.send(.panePlay(pane: 2, content: cid(1), loop: false), from: 1, device: mod)), .wrongKind)
        XCTAssertEqual(H.errorCode(to: 1, h.send(.panePlay(pane: 2, content: cid(9), loop: false), from: 1, device: mod)), .unknownContent)
        h.shownAll(h.send(.layoutSet(.split), from: 1, device: mod))
        XCTAssertEqual(H.errorCode(to: 1, h.send(.panePlay(pane: 3, content: cid(4), loop: false), from: 1, device: mod)), .noSuchPane)
        // The split had no room for pane 2: its clip stopped with it.
        XCTAssertTrue(h.log.contains(.steerClip(serial: 1, .stop)))
        XCTAssertNil(h.core.snapshot(now: h.now).layout?.soundPane)
        // The moderator's clear of a pane ends its clip.
        _ = cid4
        let serial = moderatorPlays(h, mod, pane: 1)
        let cleared = h.send(.paneSet(PaneRequest(pane: 1, .clear)), from: 1, device: mod)
        XCTAssertEqual(H.clipWork(cleared).first, .steerClip(serial: serial, .stop))
    }

    func moderatorPlays(_ h: H, _ mod: DeviceID, pane: UInt8) -> Int {
        let play = h.send(.panePlay(pane: pane, content: cid(4), loop: false), from: 1, device: mod)
        guard case .openClip(let serial, _)? = H.work(play).first else {
            XCTFail("\(play)")
            return -1
        }
        h.shownAll(h.handle(.clipOpened(serial: serial, .success(Self.facts))))
        return serial
    }

    /// pane-set full on a pane playing a clip: the clip goes on over the whole wall, its
    /// driver (now the floor's) steers it.
    func testAPaneMadeFullKeepsItsClipPlaying() {
        let (h, mod, _, ben, _) = splitRoom()
        let serial = benPlays(h, ben)
        let full = h.send(.paneSet(PaneRequest(pane: 1, .full)), from: 1, device: mod)
        XCTAssertFalse(H.clipWork(full).contains(.steerClip(serial: serial, .stop)), "\(H.clipWork(full))")
        XCTAssertEqual(H.walls(full).last, WallPlan(layout: .full, panes: [.clip(serial: serial)]))
        h.shownAll(full)
        let s = h.core.snapshot(now: h.now)
        XCTAssertEqual(s.floor.driver, ben)
        XCTAssertEqual(s.screen.clip?.state, .playing)
        XCTAssertEqual(s.layout?.soundPane, 0)
        XCTAssertEqual(H.work(h.send(.clipPause, from: 3, device: ben)), [.steerClip(serial: serial, .pause)])
    }

    /// The room asks for the whole wall the same way for one pane or several.
    func testAOnePaneWallIsShownAsAPlanToo() {
        let h = H(floor: .open, catalog: [deck(1), Self.clip(2)])
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        h.own(cid(1), from: 1, device: ana)
        h.own(cid(2), from: 1, device: ana)
        let present = h.send(.present(content: cid(1), page: 1), from: 1, device: ana)
        XCTAssertEqual(H.work(present), [.showWall(op: lastOp(present), WallPlan(layout: .full, panes: [.scene(page(1, 1))]))])
        h.shownAll(present)
        h.send(.clipPlay(content: cid(2), loop: false), from: 1, device: ana)
        XCTAssertEqual(H.walls(h.handle(.clipOpened(serial: 1, .success(Self.facts)))), [WallPlan(layout: .full, panes: [.clip(serial: 1)])])
        let ended = h.handle(.clipEnded(serial: 1, ClipEnding(how: .ended, progress: ClipProgress(state: .stopped))))
        XCTAssertEqual(H.walls(ended), [WallPlan(layout: .full, panes: [.scene(page(1, 1))])], "the slide under it is shown again")
    }

    func lastOp(_ effects: [RoomEffect]) -> Int {
        effects.compactMap { if case .showWall(let op, _) = $0 { return op } else { return nil } }.last ?? -1
    }
}
