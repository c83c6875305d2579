/// The room's state pushes as one value (§14.1, RoomCore+StatePush.swift): the revision
/// they count, the newest state encoded once for everyone and once for viewers (encoded
/// again only after a change: a burst of changes costs one encoding per paced push, not
/// one each), when the earliest owed push may go, and a floor change's push waiting for
/// the screen change it caused. Each device's own pace is its `Peer.statePacer`.
struct StatePushes: Equatable, Sendable {
    /// Goes up with every push; starts again from 0 at every start (the epoch tells runs apart).
    private(set) var revision: UInt64 = 0
    /// The newest state as the floor's devices get it, and whether a change made it old.
    var latest: [UInt8] = []
    var stale = true
    /// The same for viewers (§24.6: what they may see of polls and questions).
    var latestViewer: [UInt8] = []
    var viewerStale = true
    /// Seconds between two pushes to one client (`StatePacer`); the core's table tests set
    /// 0 to see every push.
    var interval = StatePacer.interval
    /// The earliest time a push owed to some client may go (nil: none owed).
    private(set) var dueAt: Double?
    /// A floor change whose push waits for the screen change it caused (RoomCore.apply).
    var owed = false

    /// A change to push: the next push encodes the state again (for viewers too, unless
    /// only the presenters and moderator see it).
    mutating func changed(viewers: Bool) {
        owed = false
        revision += 1
        stale = true
        if viewers { viewerStale = true }
    }

    /// A push owed to some client may go at `at`.
    mutating func owe(at: Double) { dueAt = min(dueAt ?? at, at) }

    /// Whether owed pushes are due at `now` (then none is owed until offered again).
    mutating func takeDue(now: Double) -> Bool {
        guard let due = dueAt, now >= due else { return false }
        dueAt = nil
        return true
    }
}
