import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// The screen queue and the clip: one change at a time, committed once shown.
final class RoomCoreScreenTests: XCTestCase {
    typealias H = RoomCoreHarness

    /// Ana holds the floor (open room) and owns deck 1 (5 pages) and clip 2.
    func presenting() -> (H, DeviceID) {
        let clip = ContentEntry(id: cid(2), name: "clip.mp4", kind: .clip, size: 5000, pages: 0)
        let h = H(floor: .open, catalog: [deck(1), clip])
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        h.own(cid(1), from: 1, device: ana)
        h.own(cid(2), from: 1, device: ana)
        return (h, ana)
    }

    func testPresentIsAnsweredOnceTheStageShowedIt() {
        let (h, ana) = presenting()
        let asked = h.send(.present(content: cid(1), page: 2), from: 1, tag: 40, device: ana)
        XCTAssertEqual(H.shows(asked), [page(1, 2)])
        XCTAssertEqual(H.work(asked).count, 1)
        XCTAssertTrue(H.replies(to: 1, asked).isEmpty, "no answer before it is on screen")
        let shown = h.shown(asked)
        XCTAssertEqual(H.replies(to: 1, shown), [.presentOK])
        XCTAssertEqual(H.states(to: 1, shown).last?.screen.page, 2)
        XCTAssertTrue(shown.contains { if case .persist(let s) = $0 { return s.page == 2 } else { return false } })
    }

    func testChangesRunOneAtATimeFromTheCommittedScreen() {
        let (h, ana) = presenting()
        let present = h.send(.present(content: cid(1), page: 1), from: 1, device: ana)
        let next1 = h.send(.control(.next), from: 1, device: ana)
        let next2 = h.send(.control(.next), from: 1, device: ana)
        XCTAssertTrue(H.work(next1 + next2).isEmpty, "queued behind the present")
        let first = h.shown(present)
        XCTAssertEqual(H.replies(to: 1, first), [.presentOK])
        XCTAssertEqual(H.shows(first), [page(1, 2)])
        let second = h.shown(first)
        XCTAssertEqual(H.replies(to: 1, second), [.controlOK])
        XCTAssertEqual(H.shows(second), [page(1, 3)], "computed from page 2, once shown")
        h.shown(second)
        XCTAssertEqual(h.core.snapshot(now: h.now).screen.page, 3)
    }

    func testAChangeTheStageCouldNotShowLeavesTheScreenAndTheQueueGoesOn() {
        let (h, ana) = presenting()
        h.shown(h.send(.present(content: cid(1), page: 1), from: 1, device: ana))
        let asked = h.send(.present(content: cid(1), page: 4), from: 1, tag: 9, device: ana)
        h.send(.control(.next), from: 1, tag: 10, device: ana)
        let failed = h.shown(asked, error: LecternError(.unreadableContent, message: "bad page"))
        XCTAssertEqual(H.errorCode(to: 1, failed), .unreadableContent)
        XCTAssertTrue(failed.contains(.log(.warning, "screen change not shown: bad page")), "the admin sees it in the log")
        XCTAssertTrue(H.states(to: 1, failed).isEmpty, "nothing changed")
        XCTAssertEqual(H.shows(failed), [page(1, 2)], "the next change runs, from page 1")
        XCTAssertEqual(h.core.snapshot(now: h.now).screen.page, 1)
    }

    func testSignalsAreCheckedAgainstTheScreenWhenTheirTurnComes() {
        let (h, ana) = presenting()
        XCTAssertEqual(H.errorCode(to: 1, h.send(.control(.next), from: 1, device: ana)), .nothingOnScreen)
        h.shown(h.send(.present(content: cid(1), page: 5), from: 1, device: ana))
        let last = h.send(.control(.next), from: 1, device: ana)
        XCTAssertEqual(H.replies(to: 1, last), [.controlOK], "next on the last page: nothing to show, done")
        XCTAssertTrue(H.work(last).isEmpty)
        XCTAssertEqual(H.errorCode(to: 1, h.send(.control(.goto(page: 9)), from: 1, device: ana)), .pageOutOfRange)
    }

    func testPresentChecksTheFloorTheFileAndThePage() {
        let (h, ana) = presenting()
        let ben = h.join(2, name: "Ben")
        XCTAssertEqual(H.errorCode(to: 2, h.send(.present(content: cid(1), page: 1), from: 2, device: ben)), .floorTaken)
        XCTAssertEqual(H.errorCode(to: 1, h.send(.present(content: cid(9), page: 1), from: 1, device: ana)), .unknownContent)
        XCTAssertEqual(H.errorCode(to: 1, h.send(.present(content: cid(2), page: 1), from: 1, device: ana)), .wrongKind)
        XCTAssertEqual(H.errorCode(to: 1, h.send(.present(content: cid(1), page: 6), from: 1, device: ana)), .pageOutOfRange)
        XCTAssertTrue(H.work(h.log.suffix(8)).isEmpty)
    }

    func testAClipPlaysOverTheSlideAndAnyScreenChangeStopsItFirst() {
        let (h, ana) = presenting()
        let play = h.send(.clipPlay(content: cid(2), loop: false), from: 1, tag: 5, device: ana)
        XCTAssertEqual(H.work(play), [.openClip(serial: 1, content: cid(2).hex)])
        let opened = h.handle(.clipOpened(serial: 1, .success(ClipFacts(duration: 4, description: "h264"))))
        XCTAssertEqual(H.replies(to: 1, opened), [.clipPlayOK])
        XCTAssertEqual(H.clipWork(opened), [.clipSound(serial: 1), .playClip(serial: 1, loop: false, layout: .full, pane: 0)])
        XCTAssertEqual(H.walls(opened), [WallPlan(layout: .full, panes: [.clip(serial: 1)])], "the clip is what the one pane shows")
        XCTAssertEqual(H.states(to: 1, opened).last?.screen.clip?.durationMs, 4000)

        let paused = h.handle(.clipProgressed(serial: 1, ClipProgress(state: .paused, position: 1.5, presented: 45)))
        XCTAssertEqual(H.states(to: 1, paused).last?.screen.clip?.state, .paused)
        XCTAssertEqual(H.errorCode(to: 1, h.send(.clipSeek(positionMs: 4001), from: 1, device: ana)), .seekOutOfRange)
        XCTAssertEqual(H.work(h.send(.clipSeek(positionMs: 2000), from: 1, device: ana)), [.steerClip(serial: 1, .seek(2))])

        let present = h.send(.present(content: cid(1), page: 1), from: 1, device: ana)
        XCTAssertEqual(H.work(present).first, .steerClip(serial: 1, .stop), "the clip stops first")
        XCTAssertEqual(H.shows(present), [page(1, 1)])
        let ended = h.handle(.clipEnded(serial: 1, ClipEnding(how: .stopped, progress: ClipProgress(state: .stopped))))
        XCTAssertNil(H.states(to: 1, ended).last?.screen.clip)
        XCTAssertEqual(H.errorCode(to: 1, h.send(.clipPause, from: 1, device: ana)), .noClip)
    }

    func testAClipSupersededWhileOpeningIsLetGo() {
        let (h, ana) = presenting()
        h.send(.clipPlay(content: cid(2), loop: false), from: 1, device: ana)
        h.send(.clipPlay(content: cid(2), loop: true), from: 1, device: ana)
        XCTAssertEqual(
            H.work(h.handle(.clipOpened(serial: 1, .success(ClipFacts(duration: 4, description: ""))))),
            [.discardClip(serial: 1)])
        XCTAssertEqual(
            H.clipWork(h.handle(.clipOpened(serial: 2, .success(ClipFacts(duration: 4, description: ""))))),
            [.clipSound(serial: 2), .playClip(serial: 2, loop: true, layout: .full, pane: 0)])
    }

    /// A clip started from the idle screen has no slides under it: Next, Previous and Go to
    /// change nothing (the clip plays on) and say so; over a slide, Next stops the clip and
    /// turns the page (§11).
    func testAPageTurnDuringAClipFromTheIdleScreenLeavesTheClipPlaying() {
        let (h, ana) = presenting()
        h.send(.clipPlay(content: cid(2), loop: false), from: 1, device: ana)
        h.handle(.clipOpened(serial: 1, .success(ClipFacts(duration: 4, description: "h264"))))
        for signal in [ControlSignal.next, .prev, .goto(page: 2)] {
            let turned = h.send(.control(signal), from: 1, device: ana)
            XCTAssertEqual(H.work(turned), [], "\(signal): the clip is not stopped, nothing is shown")
            guard case .controlFailed(let e) = H.replies(to: 1, turned).first else { return XCTFail("\(signal): \(H.replies(to: 1, turned))") }
            XCTAssertEqual(e.code, .nothingOnScreen)
            XCTAssertTrue(e.message.hasPrefix("A clip is playing with no slides under it:"), e.message)
        }
        let next = h.send(.control(.next), from: 1, device: ana)
        guard case .controlFailed(let e) = H.replies(to: 1, next).first else { return XCTFail() }
        XCTAssertEqual(e.message, "A clip is playing with no slides under it: Next has no page to turn to, so the clip plays on. Stop the clip to go back to the idle screen.")
        XCTAssertEqual(h.core.snapshot(now: h.now).screen.clip?.durationMs, 4000, "still playing")

        // With a slide under the clip, Next stops it and turns the page.
        h.shown(h.send(.present(content: cid(1), page: 1), from: 1, device: ana))
        h.handle(.clipEnded(serial: 1, ClipEnding(how: .stopped, progress: ClipProgress(state: .stopped))))
        h.send(.clipPlay(content: cid(2), loop: false), from: 1, device: ana)
        h.handle(.clipOpened(serial: 2, .success(ClipFacts(duration: 4, description: "h264"))))
        let over = h.send(.control(.next), from: 1, device: ana)
        XCTAssertEqual(H.work(over).first, .steerClip(serial: 2, .stop))
        XCTAssertEqual(H.shows(over), [page(1, 2)])
    }
}
