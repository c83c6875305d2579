import LecternModel

/// The room's meeting (docs/protocol.md §27), as a value: its opaque id, when it started,
/// and since when nobody is in the room. Pure: the time and whether anyone is in the room
/// come in, the decision (started, ended idle) goes out; `RoomCore+Meeting` carries it out.
///
/// A meeting **starts** with the first person after the room was empty or a meeting ended:
/// a presenter, the moderator or a viewer registering (a wall view is no person). It
/// **ends** at the moderator's End meeting, or once the room has had no person in it for
/// `idleSeconds`. Each meeting has its own id, made when the one before it ends, kept
/// across restarts (`state.json`), so that a browser can tie what it remembers to it.
public struct Meeting: Codable, Equatable, Sendable {
    /// The meeting's opaque id: 16 random bytes, hex.
    public private(set) var id: String
    /// When it started (wall clock, seconds since 1970); nil: nobody came since the last end.
    public private(set) var startedAt: Double?
    /// Since when (monotonic seconds) no person is in the room; not saved: a restart counts afresh.
    public private(set) var emptySince: Double?

    enum CodingKeys: String, CodingKey { case id, startedAt }

    public init(id: String) { self.id = id }

    /// What `occupancy` decided.
    public enum Step: Equatable, Sendable {
        case none
        /// The first person came: the meeting started now.
        case started
        /// Nobody was in the room for the idle time: the meeting ends.
        case idleEnd
    }

    public var started: Bool { startedAt != nil }

    /// Called every tick (and when someone joins): `people` whether any person is in the
    /// room; `leftovers` whether anything of a meeting is kept (a state from before meetings
    /// had a start, say); `idleSeconds` the idle end's time.
    public mutating func occupancy(people: Bool, leftovers: Bool, now: Double, wallClock: Double, idleSeconds: Double) -> Step {
        if people {
            emptySince = nil
            guard startedAt == nil else { return .none }
            startedAt = wallClock
            return .started
        }
        let since = emptySince ?? now
        emptySince = since
        guard started || leftovers, now - since >= idleSeconds else { return .none }
        return .idleEnd
    }

    /// The meeting ended: the next one gets `nextID` and starts with its first person.
    public mutating func ended(nextID: String, now: Double) {
        id = nextID
        startedAt = nil
        emptySince = now
    }

    /// The meeting kept in `state.json` by an earlier run (its emptiness is counted afresh).
    public mutating func restore(_ saved: Meeting) {
        id = saved.id
        startedAt = saved.startedAt
        emptySince = nil
    }
}
