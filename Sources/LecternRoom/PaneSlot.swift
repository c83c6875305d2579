import LecternProtocol

/// Where one screen of the wall lives (§9.7): the main pane, whose screen is the room's
/// (`RoomCore.screen`), or another pane with a queue of its own. Pane indices move (a
/// swap, a new layout), so a slot is looked up when needed and never kept.
enum PaneSlot: Equatable {
    case main
    case pane(Int)
}

extension RoomCore {
    /// Every screen of the wall: the main one first, then the other panes in index order.
    var slots: [PaneSlot] { [.main] + wall.panes.indices.filter { !wall.panes[$0].isMain }.map { .pane($0) } }

    /// The screen queue of `slot`.
    func queue(_ slot: PaneSlot) -> ScreenQueue {
        switch slot {
        case .main: return screen
        case .pane(let i): return wall.panes[i].queue ?? ScreenQueue()
        }
    }

    /// Changes the screen queue of `slot`.
    @discardableResult
    mutating func withQueue<T>(_ slot: PaneSlot, _ body: (inout ScreenQueue) -> T) -> T {
        switch slot {
        case .main: return body(&screen)
        case .pane(let i):
            var q = wall.panes[i].queue ?? ScreenQueue()
            let r = body(&q)
            wall.withQueue(i) { $0 = q }
            return r
        }
    }

    /// The pane index of `slot` in the layout.
    func paneIndex(_ slot: PaneSlot) -> Int {
        switch slot {
        case .main: return wall.mainIndex
        case .pane(let i): return i
        }
    }

    /// The screen whose clip is `serial` (playing, or being opened).
    func slot(ofClip serial: Int) -> PaneSlot? {
        slots.first { s in
            let q = queue(s)
            return q.clip?.serial == serial || q.opening[serial] != nil
        }
    }

    /// The screen a device's screen and clip commands act on: the pane it drives, else the
    /// main one (with the floor's checks).
    func drivenSlot(_ me: DeviceID) -> PaneSlot {
        wall.pane(drivenBy: me).map { .pane($0) } ?? .main
    }
}
