import LecternProtocol

/// The room's pictures being made and sent (screenshots, page previews, §13) as one value
/// (RoomCore+Pictures.swift): the room-wide budget, the connections gone with pictures
/// still being made (their bytes free when made), and when sent pictures' bytes may be
/// settled. Each connection's own pictures are in its `Peer`.
struct RoomPictures: Equatable, Sendable {
    var budget = PictureBudget()
    /// Connections closed with pictures still being made, as they were when they closed.
    var gone: [ConnectionID: Peer] = [:]
    /// When sent pictures' bytes may be settled (nil: none waits).
    private(set) var settleAt: Double?

    /// Sent pictures' bytes may be settled at `at` (the earliest such time is kept).
    mutating func settle(at: Double) { settleAt = min(settleAt ?? at, at) }

    /// Whether sent pictures are due to be settled at `now` (then none waits until asked again).
    mutating func takeSettling(now: Double) -> Bool {
        guard let at = settleAt, now >= at else { return false }
        settleAt = nil
        return true
    }
}
