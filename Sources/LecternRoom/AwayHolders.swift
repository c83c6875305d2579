import LecternProtocol

/// Floor holders away in their grace period, and the ones whose grace ran out (§9.6), so
/// that a device coming back too late is told why it has no floor any more
/// (`floorExpired`) instead of finding a room that moved on without a word. Pure: the
/// room tells it who is away after each floor step, who left, and who registers.
///
/// The tokens of expired holders are kept in memory only (a restart forgets them), the
/// newest `limit` of them, and each is told once.
struct AwayHolders {
    struct Away: Equatable {
        let token: ResumeToken
        let deadline: Double
    }

    static let limit = 8
    private(set) var away: [DeviceID: Away] = [:]
    /// Tokens of holders whose grace period ran out, oldest first.
    private(set) var expired: [ResumeToken] = []

    /// The floor's devices after a step: who is away (in the grace period) now.
    mutating func note(_ devices: [DeviceID: Floor.Device]) {
        var now: [DeviceID: Away] = [:]
        for d in devices.values where !d.isConnected {
            if let deadline = d.graceDeadline { now[d.id] = Away(token: d.resumeToken, deadline: deadline) }
        }
        away = now
    }

    /// `id` left the room at `now`: if it was away and its grace period was over, its token
    /// is remembered (a floor ended by someone else while it was away is not: the state
    /// shows who has it).
    mutating func left(_ id: DeviceID, now: Double) {
        guard let a = away.removeValue(forKey: id), now >= a.deadline else { return }
        expired.append(a.token)
        if expired.count > Self.limit { expired.removeFirst(expired.count - Self.limit) }
    }

    /// A device registers with `token` and was not resumed: whether its floor ran out while
    /// it was away. True once per token.
    mutating func claim(_ token: ResumeToken?) -> Bool {
        guard let token else { return false }
        var found: Int? = nil
        // Every token compared in constant time, as the floor does (timing reveals nothing).
        for (i, t) in expired.enumerated() where t.constantTimeEquals(token) { found = i }
        guard let i = found else { return false }
        expired.remove(at: i)
        return true
    }
}
