import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// The wall's layout (docs/protocol.md §9.7): the moderator arranges the panes, each
/// presenter drives their own, an open room's presenter adds to the wall, and a pane handed
/// to someone else never shows the previous driver's material. Events in, effects asserted
/// in order.
final class RoomCoreLayoutTests: XCTestCase {
    typealias H = RoomCoreHarness

    /// A moderated room: the chair (1), Ana (2) with the floor showing deck 1 page 1, Ben (3)
    /// who owns deck 2. Returns the device ids.
    func ana1() -> (H, mod: DeviceID, ana: DeviceID, ben: DeviceID) {
        let h = H(floor: .moderated, catalog: [deck(1), deck(2), deck(3)])
        let mod = h.join(1, name: "Chair", role: .moderator)
        let ana = h.join(2, name: "Ana")
        let ben = h.join(3, name: "Ben")
        h.send(.floorRequest, from: 2, device: ana)
        h.send(.floorModerate(action: .grant, target: ana), from: 1, device: mod)
        h.own(cid(1), from: 2, device: ana)
        h.own(cid(2), from: 3, device: ben)
        h.shown(h.send(.present(content: cid(1), page: 1), from: 2, device: ana))
        return (h, mod, ana, ben)
    }

    /// The moderator splits the wall and puts Ben in pane 1: Ana's deck stays in pane 0.
    func split(_ h: H, mod: DeviceID, ben: DeviceID) {
        let set = h.send(.layoutSet(.split), from: 1, tag: 40, device: mod)
        XCTAssertEqual(H.replies(to: 1, set), [.ok])
        XCTAssertEqual(Self.walls(set), [WallPlan(layout: .split, panes: [.scene(page(1, 1)), .scene(.idle)])])
        let assign = h.send(.paneSet(PaneRequest(pane: 1, .assign(ben))), from: 1, tag: 41, device: mod)
        XCTAssertEqual(H.replies(to: 1, assign), [.ok])
        XCTAssertEqual(Self.walls(assign), [], "pane 1 was idle already: nothing to show")
        XCTAssertEqual(H.states(to: 3, assign).last?.layout?.panes[1].driver, ben)
    }

    func testTwoPresentersEachDriveTheirOwnPaneAtOnce() {
        let (h, mod, ana, ben) = ana1()
        split(h, mod: mod, ben: ben)
        let present = h.send(.present(content: cid(2), page: 3), from: 3, tag: 50, device: ben)
        XCTAssertEqual(Self.walls(present), [WallPlan(layout: .split, panes: [.scene(page(1, 1)), .scene(page(2, 3))])])
        XCTAssertEqual(H.replies(to: 3, present), [], "answered once shown")
        XCTAssertEqual(H.replies(to: 3, h.shownAll(present)), [.presentOK])
        // Both turn a page at once; each change shows the other pane as it stands.
        let benNext = h.send(.control(.next), from: 3, tag: 51, device: ben)
        let anaNext = h.send(.control(.next), from: 2, tag: 52, device: ana)
        XCTAssertEqual(Self.walls(benNext), [WallPlan(layout: .split, panes: [.scene(page(1, 1)), .scene(page(2, 4))])])
        XCTAssertEqual(Self.walls(anaNext), [WallPlan(layout: .split, panes: [.scene(page(1, 2)), .scene(page(2, 4))])])
        // Ana's show, the newer, carries Ben's page too: shown, it settles both.
        let done = h.shownAll(anaNext)
        XCTAssertEqual(H.replies(to: 2, done), [.controlOK])
        XCTAssertEqual(H.replies(to: 3, done), [.controlOK])
        XCTAssertTrue(H.replies(to: 3, h.shownAll(benNext)).isEmpty, "Ben's own late report changes nothing")
        // Each device's `screen` is its own pane; the layout shows both.
        let benState = H.states(to: 3, done).last
        let anaState = H.states(to: 2, done).last
        XCTAssertEqual(benState?.screen.content?.id, cid(2))
        XCTAssertEqual(benState?.screen.page, 4)
        XCTAssertEqual(anaState?.screen.content?.id, cid(1))
        XCTAssertEqual(anaState?.screen.page, 2)
        let layout = try? XCTUnwrap(anaState?.layout)
        XCTAssertEqual(layout?.kind, .split)
        XCTAssertEqual(layout?.panes.map(\.driver), [ana, ben])
        XCTAssertEqual(layout?.panes.map(\.main), [true, false])
        XCTAssertEqual(layout?.panes.map(\.screen.page), [2, 4])
        XCTAssertEqual(layout?.panes[1].rect, PaneSnapshot.Rect(x: 0.5, y: 0, width: 0.5, height: 1))
        XCTAssertEqual(anaState?.protocolMinor, lecternProtocolMinor)
    }

    /// The stage drops a show when a newer one comes (its ticket is old): Ana's page turn,
    /// dropped for Ben's, is on the wall with Ben's, and both are answered ok.
    func testAShowDroppedForANewerOneStandsWithIt() {
        let (h, mod, ana, ben) = ana1()
        split(h, mod: mod, ben: ben)
        h.shownAll(h.send(.present(content: cid(2), page: 3), from: 3, device: ben))
        let anaNext = h.send(.control(.next), from: 2, tag: 80, device: ana)
        let benNext = h.send(.control(.next), from: 3, tag: 81, device: ben)
        guard case .showWall(let anaOp, _)? = H.work(anaNext).first, case .showWall(let benOp, let plan)? = H.work(benNext).first else {
            return XCTFail("\(anaNext) \(benNext)")
        }
        XCTAssertEqual(plan, WallPlan(layout: .split, panes: [.scene(page(1, 2)), .scene(page(2, 4))]), "Ben's show carries Ana's page")
        let dropped = h.handle(.shown(op: anaOp, error: .internalError))
        XCTAssertEqual(H.replies(to: 2, dropped), [], "Ana's change waits for Ben's show")
        let shown = h.handle(.shown(op: benOp, error: nil))
        XCTAssertEqual(H.replies(to: 2, shown), [.controlOK])
        XCTAssertEqual(H.replies(to: 3, shown), [.controlOK])
        XCTAssertEqual(H.states(to: 1, shown).last?.layout?.panes.map(\.screen.page), [2, 4])
    }

    func testAPaneHandedToSomeoneElseShowsNothingOfThePreviousDriver() {
        let (h, mod, _, ben) = ana1()
        let cid4 = h.join(4, name: "Cid")
        split(h, mod: mod, ben: ben)
        h.shownAll(h.send(.present(content: cid(2), page: 2), from: 3, device: ben))
        let handed = h.send(.paneSet(PaneRequest(pane: 1, .assign(cid4))), from: 1, tag: 60, device: mod)
        XCTAssertEqual(H.replies(to: 1, handed), [.ok])
        XCTAssertEqual(Self.walls(handed), [WallPlan(layout: .split, panes: [.scene(page(1, 1)), .scene(.idle)])])
        let after = h.shownAll(handed)
        let state = H.states(to: 4, after).last
        XCTAssertEqual(state?.layout?.panes[1].driver, cid4)
        XCTAssertNil(state?.screen.content, "Cid's screen is his pane: empty, not Ben's deck")
        // Ben drives nothing now: his next goes to the floor (Ana's), and he doesn't have it.
        XCTAssertEqual(H.errorCode(to: 3, h.send(.control(.next), from: 3, device: ben)), .floorTaken)
    }

    func testADeviceMovedToAnotherPaneLeavesItsOldPaneEmpty() {
        let (h, mod, ana, ben) = ana1()
        split(h, mod: mod, ben: ben)
        h.shownAll(h.send(.present(content: cid(2), page: 2), from: 3, device: ben))
        h.send(.layoutSet(.quad), from: 1, device: mod)
        let moved = h.send(.paneSet(PaneRequest(pane: 2, .assign(ben))), from: 1, device: mod)
        XCTAssertEqual(
            Self.walls(moved), [WallPlan(layout: .quad, panes: [.scene(page(1, 1)), .scene(.idle), .scene(.idle), .scene(.idle)])],
            "pane 1 is emptied as Ben leaves it (pane 2 was empty already)")
        let state = H.states(to: 3, h.shownAll(moved)).last
        XCTAssertEqual(state?.layout?.panes.map(\.driver), [ana, nil, ben, nil])
    }

    func testADriverWhoLeavesLeavesAnEmptyPane() {
        let (h, mod, _, ben) = ana1()
        split(h, mod: mod, ben: ben)
        h.shownAll(h.send(.present(content: cid(2), page: 2), from: 3, device: ben))
        let kicked = h.send(.floorModerate(action: .kick, target: ben), from: 1, device: mod)
        XCTAssertEqual(Self.walls(kicked), [WallPlan(layout: .split, panes: [.scene(page(1, 1)), .scene(.idle)])])
        XCTAssertEqual(H.states(to: 1, h.shownAll(kicked)).last?.layout?.panes[1].driver, nil)
    }

    func testOnlyTheModeratorArrangesAndPanesAreChecked() {
        let (h, mod, ana, ben) = ana1()
        XCTAssertEqual(H.errorCode(to: 2, h.send(.layoutSet(.quad), from: 2, device: ana)), .moderatorOnly)
        XCTAssertEqual(H.errorCode(to: 3, h.send(.paneSet(PaneRequest(pane: 0, .clear)), from: 3, device: ben)), .moderatorOnly)
        let far = h.send(.paneSet(PaneRequest(pane: 1, .clear)), from: 1, device: mod)
        guard case .error(let e)? = H.replies(to: 1, far).first else { return XCTFail("\(far)") }
        XCTAssertEqual(e.code, .noSuchPane)
        XCTAssertEqual(e.detail, 1, "detail: the layout's pane count")
        XCTAssertEqual(H.errorCode(to: 3, h.send(.wallAdd(content: cid(2), page: 1), from: 3, device: ben)), .wallModerated)
        XCTAssertEqual(H.errorCode(to: 1, h.send(.paneSet(PaneRequest(pane: 0, .assign(99))), from: 1, device: mod)), .noSuchDevice)
    }

    func testAPaneDriverMayShowOnlyTheirOwnDecks() {
        let (h, mod, _, ben) = ana1()
        split(h, mod: mod, ben: ben)
        XCTAssertEqual(H.errorCode(to: 3, h.send(.present(content: cid(1), page: 1), from: 3, device: ben)), .notYourContent)
        // clip-play acts on the pane too (RoomCorePaneClipTests); a deck is no clip.
        XCTAssertEqual(H.errorCode(to: 3, h.send(.clipPlay(content: cid(2), loop: false), from: 3, device: ben)), .wrongKind)
        XCTAssertEqual(H.errorCode(to: 3, h.send(.clipPlay(content: cid(1), loop: false), from: 3, device: ben)), .notYourContent)
        XCTAssertEqual(H.errorCode(to: 3, h.send(.control(.next), from: 3, device: ben)), .nothingOnScreen)
    }

    func testInAnOpenRoomAPresenterAddsToTheWallBesideWhatIsShown() {
        let h = H(floor: .open, catalog: [deck(1), deck(2), deck(3), deck(4), deck(5)])
        var ids: [DeviceID] = []
        for (i, name) in ["Ana", "Ben", "Cid", "Dan", "Eve"].enumerated() {
            let c = ConnectionID(i + 1)
            ids.append(h.join(c, name: name))
            h.own(cid(UInt8(i + 1)), from: c, device: ids[i])
        }
        // The wall shows nothing and nobody has the floor: Ana's add takes both.
        let first = h.send(.wallAdd(content: cid(1), page: 1), from: 1, device: ids[0])
        XCTAssertEqual(H.shows(first), [page(1, 1)], "one pane: today's show")
        XCTAssertEqual(H.replies(to: 1, h.shown(first)), [.presentOK])
        XCTAssertEqual(h.core.floor.holder, ids[0])
        // Ben adds beside: full → split, Ben drives pane 1.
        let second = h.send(.wallAdd(content: cid(2), page: 3), from: 2, device: ids[1])
        XCTAssertEqual(Self.walls(second), [WallPlan(layout: .split, panes: [.scene(page(1, 1)), .scene(page(2, 3))])])
        XCTAssertEqual(H.replies(to: 2, h.shownAll(second)), [.presentOK])
        XCTAssertEqual(h.core.floor.holder, ids[0], "Ana keeps the floor")
        // Cid: split → quad; Dan fills the last pane; Eve finds the wall full.
        let third = h.send(.wallAdd(content: cid(3), page: 1), from: 3, device: ids[2])
        XCTAssertEqual(
            Self.walls(third), [WallPlan(layout: .quad, panes: [.scene(page(1, 1)), .scene(page(2, 3)), .scene(page(3, 1)), .scene(.idle)])])
        h.shownAll(third)
        let fourth = h.send(.wallAdd(content: cid(4), page: 2), from: 4, device: ids[3])
        XCTAssertEqual(Self.walls(fourth).last?.panes.last, .scene(page(4, 2)))
        let states = H.states(to: 5, h.shownAll(fourth))
        XCTAssertEqual(states.last?.layout?.panes.map(\.driver), [ids[0], ids[1], ids[2], ids[3]])
        XCTAssertEqual(H.errorCode(to: 5, h.send(.wallAdd(content: cid(5), page: 1), from: 5, device: ids[4])), .wallFull)
        // Ben's add again replaces his own pane's page, nothing else.
        let again = h.send(.wallAdd(content: cid(2), page: 5), from: 2, device: ids[1])
        XCTAssertEqual(Self.walls(again).last?.panes.map { $0 }, [.scene(page(1, 1)), .scene(page(2, 5)), .scene(page(3, 1)), .scene(page(4, 2))])
    }

    func testFullScreenPaneGivesItsDriverTheFloorAndTheWall() {
        let (h, mod, _, ben) = ana1()
        split(h, mod: mod, ben: ben)
        h.shownAll(h.send(.present(content: cid(2), page: 2), from: 3, device: ben))
        let full = h.send(.paneSet(PaneRequest(pane: 1, .full)), from: 1, tag: 70, device: mod)
        XCTAssertEqual(H.replies(to: 1, full), [.ok])
        XCTAssertEqual(h.core.floor.holder, ben)
        // The floor's change clears the wall first (as any floor change does), then Ben's page.
        XCTAssertEqual(H.shows(full), [.idle, .idle])
        XCTAssertEqual(Self.walls(full), [WallPlan(.idle), WallPlan(.idle)], "one path: the whole wall's plan, one pane or several")
        let next = h.shownAll(full)
        XCTAssertEqual(H.shows(next), [page(2, 2)])
        let state = H.states(to: 3, h.shownAll(next)).last
        XCTAssertEqual(state?.layout?.kind, .full)
        XCTAssertEqual(state?.screen.page, 2)
        XCTAssertEqual(state?.layout?.panes.map(\.driver), [ben])
    }

    /// Op ids are one increasing sequence over every pane's queue and the wall's own
    /// changes, dropped panes included: the stage sees them in the order asked.
    func testOpIDsGoUpAcrossPanesAndLayoutChanges() {
        let h = H(floor: .moderated, catalog: [deck(1)])
        let mod = h.join(1, name: "Chair", role: .moderator)
        var ops: [Int] = []
        func note(_ effects: [RoomEffect]) -> [RoomEffect] {
            for e in effects {
                if case .showWall(let op, _) = e { ops.append(op) }
            }
            return effects
        }
        h.shownAll(note(h.send(.layoutSet(.quad), from: 1, device: mod)))
        h.shownAll(note(h.send(.paneSet(PaneRequest(pane: 3, .present(content: cid(1), page: 3))), from: 1, device: mod)))
        let full = note(h.send(.paneSet(PaneRequest(pane: 3, .full)), from: 1, device: mod))
        XCTAssertEqual(H.shows(full), [page(1, 3), page(1, 3)], "the pane's page becomes the room's screen")
        h.shownAll(full)
        h.shownAll(note(h.send(.control(.next), from: 1, device: mod)))
        XCTAssertEqual(ops, Array(1...ops.count), "one increasing sequence: \(ops)")
        XCTAssertEqual(h.core.snapshot(now: h.now).screen.page, 4)
    }

    func testSwapMovesPanesWithTheirDriversAndBackToFullKeepsTheMainPane() {
        let (h, mod, ana, ben) = ana1()
        split(h, mod: mod, ben: ben)
        h.shownAll(h.send(.present(content: cid(2), page: 2), from: 3, device: ben))
        let swap = h.send(.paneSet(PaneRequest(pane: 0, .swap(with: 1))), from: 1, device: mod)
        XCTAssertEqual(Self.walls(swap), [WallPlan(layout: .split, panes: [.scene(page(2, 2)), .scene(page(1, 1))])])
        let swapped = H.states(to: 2, swap).last?.layout
        XCTAssertEqual(swapped?.panes.map(\.driver), [ben, ana])
        XCTAssertEqual(swapped?.panes.map(\.main), [false, true])
        // Ben's next still acts on his pane, now pane 0.
        let next = h.send(.control(.next), from: 3, device: ben)
        XCTAssertEqual(Self.walls(next), [WallPlan(layout: .split, panes: [.scene(page(2, 3)), .scene(page(1, 1))])])
        h.shownAll(next)
        // Back to one pane: the main (Ana's) is kept; Ben's pane goes.
        let full = h.send(.layoutSet(.full), from: 1, device: mod)
        XCTAssertEqual(H.shows(full), [page(1, 1)])
        XCTAssertEqual(H.errorCode(to: 3, h.send(.control(.next), from: 3, device: ben)), .floorTaken)
    }

    /// §9.7: ink and the pointer act on the pane the device drives. Ben (pane 1) draws and
    /// points on his own page, his `ink.box` is his pane's page box, Ana's is the main pane's;
    /// a device that drives nothing and holds nothing may not draw.
    func testAPaneDriverInksAndPointsOnItsOwnPanesPage() {
        let (h, mod, ana, ben) = ana1()
        split(h, mod: mod, ben: ben)
        let cy = h.join(4, name: "Cy")
        let present = h.send(.present(content: cid(2), page: 3), from: 3, device: ben)
        let left = InkSnapshot.Box(x: 0, y: 0.1, width: 0.5, height: 0.8)
        let right = InkSnapshot.Box(x: 0.55, y: 0.2, width: 0.4, height: 0.6)
        var done: [RoomEffect] = []
        for case .showWall(let op, _) in present { done += h.handle(.shown(op: op, error: nil, boxes: [left, right])) }
        XCTAssertEqual(H.states(to: 3, done).last?.ink?.box, right, "Ben maps his touches on his pane's page")
        XCTAssertEqual(H.states(to: 2, done).last?.ink?.box, left, "Ana on the main pane's")

        let benPage = InkPageRef(content: cid(2).hex, page: 3)
        let begin = h.send(.ink(.strokeBegin(StrokeBegin(tool: .pen, width: .thin, colorIndex: 0, points: [InkPoint(px: 0.1, py: 0.1)]))), from: 3, device: ben)
        XCTAssertEqual(H.errorCode(to: 3, begin), nil)
        let pages = begin.compactMap { e -> InkPageRef? in if case .inkPage(let r, _) = e { return r } else { return nil } }
        XCTAssertEqual(pages, [benPage], "on Ben's page, not the main pane's")
        XCTAssertEqual(H.errorCode(to: 3, h.send(.ink(.strokeEnd([InkPoint(px: 0.2, py: 0.2)])), from: 3, device: ben)), nil)
        let point = h.send(.ink(.pointer(InkPoint(px: 0.5, py: 0.5), lifted: false)), from: 3, device: ben)
        let pointed = point.compactMap { e -> InkPageRef? in if case .pointer(_, let r, _, _) = e { return r } else { return nil } }
        XCTAssertEqual(pointed, [benPage])
        // Ben's undo takes back his stroke on his page.
        XCTAssertEqual(H.errorCode(to: 3, h.send(.ink(.undo), from: 3, device: ben)), nil)
        // Cy drives nothing and doesn't hold the floor: no ink, no pointer.
        XCTAssertEqual(H.errorCode(to: 4, h.send(.ink(.strokeBegin(StrokeBegin(tool: .pen, width: .thin, colorIndex: 0, points: []))), from: 4, device: cy)), .notAllowedToDraw)
        XCTAssertEqual(H.errorCode(to: 4, h.send(.ink(.pointer(InkPoint(px: 0.5, py: 0.5), lifted: false)), from: 4, device: cy)), .leadOnly)
        // Ben's pane emptied: nothing to ink on there, and no box for him.
        let clear = h.send(.paneSet(PaneRequest(pane: 1, .clear)), from: 1, device: mod)
        h.shownAll(clear)
        XCTAssertEqual(H.errorCode(to: 3, h.send(.ink(.strokeBegin(StrokeBegin(tool: .pen, width: .thin, colorIndex: 0, points: []))), from: 3, device: ben)), .nothingToInk)
        XCTAssertEqual(H.states(to: 3, h.send(.stateRequest, from: 3, device: ben)).count, 1)
        XCTAssertNil(H.states(to: 3, h.send(.stateRequest, from: 3, device: ben)).last?.ink?.box)
    }

    static func walls(_ effects: [RoomEffect]) -> [WallPlan] { H.walls(effects) }
}

extension RoomCoreHarness {
    /// Reports every show and wall show among `effects` as done, in order; returns what followed.
    @discardableResult
    func shownAll(_ effects: [RoomEffect]) -> [RoomEffect] {
        var out: [RoomEffect] = []
        for e in effects {
            switch e {
            case .showWall(let op, _): out += handle(.shown(op: op, error: nil))
            default: continue
            }
        }
        return out
    }
}
