import LecternModel
import LecternProtocol

/// The wall's panes (docs/protocol.md §9.7): the layout and, per pane, what it shows and who
/// drives it. Data only: `RoomCore+Layout` drives it.
///
/// One pane is the room's *main* pane: it shows the room's screen (`RoomCore.screen`, with
/// the clip), driven by the floor's driver, exactly as the whole wall was before layouts.
/// Every other pane has its own `ScreenQueue` (changes one at a time, committed once shown)
/// and a driver chosen by the moderator or by wall-add, or none. A device drives at most one
/// pane besides the main one.
struct WallArrangement: Equatable, Sendable {
    struct Pane: Equatable, Sendable {
        /// Nil for the main pane: its screen is the room's.
        var queue: ScreenQueue?
        var driver: DeviceID?
        var isMain: Bool { queue == nil }
    }

    private(set) var layout: WallLayout = .full
    private(set) var panes: [Pane] = [Pane(queue: nil, driver: nil)]
    /// The next op id of the wall's own changes (a layout change no pane's queue shows).
    /// Op ids are one increasing sequence over the main queue, the panes' queues and these
    /// (`RoomCore.syncOpIDs`), so the stage sees them in order.
    private var wallNext = 1
    /// The shows asked of the stage and not yet reported (`WallShows`).
    var shows = WallShows()

    var mainIndex: Int { panes.firstIndex(where: \.isMain) ?? 0 }
    /// Whether the wall is today's wall: one full pane, the room's screen.
    var isSinglePane: Bool { layout == .full }

    /// An op id for a wall change that no pane's queue shows (its `shown` is not waited for).
    mutating func nextWallOp() -> Int {
        wallNext += 1
        return wallNext - 1
    }

    /// The highest next op id of the wall's own and its panes' queues.
    var nextOpID: Int { panes.compactMap(\.queue?.nextID).reduce(wallNext, max) }

    /// Every queue (and the wall's own ops) goes on from `n`.
    mutating func setNextOpID(_ n: Int) {
        wallNext = n
        for i in panes.indices where panes[i].queue != nil { panes[i].queue!.nextID = n }
    }

    private mutating func newPane() -> Pane {
        var q = ScreenQueue()
        q.nextID = nextOpID
        return Pane(queue: q, driver: nil)
    }

    /// A new layout. The panes keep their order; the main pane is always kept (it moves to
    /// pane 0 if the new layout has no room at its index); panes the layout has no room for
    /// are returned (their queues' waiting changes must be answered); new panes are idle
    /// and driven by nobody.
    mutating func setLayout(_ new: WallLayout) -> [Pane] {
        wallNext = nextOpID   // the dropped panes' ids stay used
        var order = panes
        let m = mainIndex
        if m >= new.paneCount { order.insert(order.remove(at: m), at: 0) }
        let dropped = Array(order.dropFirst(new.paneCount))
        order = Array(order.prefix(new.paneCount))
        while order.count < new.paneCount { order.append(newPane()) }
        panes = order
        layout = new
        return dropped
    }

    /// After a restart: the layout and its panes as saved (`SavedWall`), each pane other
    /// than the main one showing `screens[i]` (nil: idle) and driven by `drivers[i]`.
    mutating func restore(_ layout: WallLayout, main: Int, screens: [CommittedScreen?], drivers: [DeviceID?]) {
        self.layout = layout
        panes = screens.indices.map { i in
            guard i != main else { return Pane(queue: nil, driver: nil) }
            var q = ScreenQueue()
            if let s = screens[i] { q.restore(s) }
            return Pane(queue: q, driver: drivers[i])
        }
        setNextOpID(nextOpID)
    }

    /// Panes `i` and `j` change places, each with what it shows and its driver.
    mutating func swap(_ i: Int, _ j: Int) { panes.swapAt(i, j) }

    /// The pane other than the main one that `device` drives, if any.
    func pane(drivenBy device: DeviceID) -> Int? {
        panes.indices.first { !panes[$0].isMain && panes[$0].driver == device }
    }

    mutating func setDriver(_ device: DeviceID?, of i: Int) { panes[i].driver = device }

    /// The pane whose queue runs or waits on op `id`.
    func pane(runningOp id: Int) -> Int? {
        panes.indices.first { panes[$0].queue?.running?.id == id }
    }

    /// Changes pane `i`'s queue (not the main pane's: it has none).
    @discardableResult
    mutating func withQueue<T>(_ i: Int, _ body: (inout ScreenQueue) -> T) -> T? {
        guard panes[i].queue != nil else { return nil }
        return body(&panes[i].queue!)
    }

    /// The first pane (other than the main one) that nobody drives and that shows nothing
    /// (no page, no clip) and has nothing on its way: where wall-add puts a page.
    var freePane: Int? {
        panes.indices.first { i in
            guard let q = panes[i].queue else { return false }
            return panes[i].driver == nil && q.running == nil && q.committed == .idle && q.clip == nil && q.opening.isEmpty
        }
    }

    /// The layout wall-add grows to when no pane is free: full → split, split/stack/pip →
    /// quad; a quad doesn't grow.
    var grown: WallLayout? {
        switch layout {
        case .full: return .split
        case .split, .stack, .pip: return .quad
        case .quad: return nil
        }
    }
}
