import LecternModel
import LecternProtocol

/// A pane's driver whose connection drops keeps its pane for the grace period, as the
/// floor's holder keeps the floor (docs/protocol.md §9.6, §9.7): the pane goes on showing
/// its page, its driver is shown away; back in time with its resume token, it drives the
/// pane again. When the grace period runs out the driver leaves the room, the pane is
/// emptied (the idle pane: nothing of the driver's is left for anyone else) and driven by
/// nobody, and the device, if it comes back later, is told once (`paneExpired`).
extension RoomCore {
    /// What `device` keeps while it is away: the floor, a pane.
    func held(by device: DeviceID) -> AwayHolders.Held {
        AwayHolders.Held(floor: floor.holder == device || floor.delegate == device, pane: wall.pane(drivenBy: device))
    }

    /// After every floor step: who is away now, and what each keeps.
    mutating func noteAway() {
        // What each keeps, from copies of the floor and the wall (not `self`, being changed).
        let floor = self.floor, wall = self.wall
        awayHolders.note(floor.devices) { AwayHolders.Held(floor: floor.holder == $0 || floor.delegate == $0, pane: wall.pane(drivenBy: $0)) }
    }

    /// A device away in its grace period that has nothing left to come back to (its pane
    /// was handed to someone else, or dropped from the layout) leaves the room now: its
    /// place is not kept for nothing.
    mutating func releaseStrandedAway() {
        for id in floor.away.keys.sorted() where held(by: id).isEmpty {
            apply(floor.release(absent: id, now: now))
        }
    }

    /// A device back after its grace period ran out is told what it lost, once, after the
    /// state that shows it: the floor (`floorExpired`) if it held it, else its pane.
    mutating func tellExpired(_ lost: AwayHolders.Held, to p: Peer, name: String) {
        if lost.floor {
            send(.error(.floorExpired(gracePeriod: config.gracePeriod)), to: p, tag: 0)
            log(.info, "'\(name)' came back after the grace period: told the floor was released")
        } else if let pane = lost.pane {
            send(.error(.paneExpired(gracePeriod: config.gracePeriod, pane: pane)), to: p, tag: 0)
            log(.info, "'\(name)' came back after the grace period: told pane \(pane) was cleared")
        }
    }

    /// Milliseconds left of the grace period of pane `i`'s driver while it is away (nil:
    /// connected, or nobody drives it). The main pane's is the floor's (`floor.graceRemainingMs`).
    func paneGraceRemainingMs(_ i: Int, now: Double) -> UInt64? {
        guard !wall.panes[i].isMain, let d = wall.panes[i].driver, let deadline = floor.away[d] else { return nil }
        return UInt64((max(0, deadline - now) * 1000).rounded())
    }
}
