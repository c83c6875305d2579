import LecternProtocol

/// Devices away in their grace period (§9.6): the floor's holder and the drivers of the
/// wall's panes (§9.7), and the ones whose grace ran out, so that a device coming back too
/// late is told why it has no floor (`floorExpired`) or no pane (`paneExpired`) any more
/// instead of finding a room that moved on without a word. Pure: the room tells it who is
/// away and what each holds after each step, who left, and who registers.
///
/// The tokens of expired devices are kept in memory only (a restart forgets them), the
/// newest `limit` of them, and each is told once.
struct AwayHolders: Equatable, Sendable {
    /// What an away device was keeping: the floor, a pane (its index), or both.
    struct Held: Equatable {
        var floor = false
        var pane: Int?
        var isEmpty: Bool { !floor && pane == nil }
    }

    struct Away: Equatable {
        let token: ResumeToken
        let deadline: Double
        var held: Held
    }

    static let limit = 8
    private(set) var away: [DeviceID: Away] = [:]
    /// Tokens of devices whose grace period ran out, with what they lost, oldest first.
    private(set) var expired: [Expired] = []
    struct Expired: Equatable, Sendable {
        var token: ResumeToken
        var held: Held
    }

    /// The floor's devices after a step: who is away (in the grace period) now, and what
    /// each keeps (`held`: the room's answer for a device).
    mutating func note(_ devices: [DeviceID: Floor.Device], held: (DeviceID) -> Held) {
        var now: [DeviceID: Away] = [:]
        for d in devices.values where !d.isConnected {
            guard let deadline = d.graceDeadline else { continue }
            now[d.id] = Away(token: d.resumeToken, deadline: deadline, held: held(d.id))
        }
        away = now
    }

    /// `id` left the room at `now`: if it was away and its grace period was over, its token
    /// is remembered (a floor ended or a pane handed on by someone else while it was away
    /// is not: the state shows who has it).
    /// `pane`: the pane it drives as it leaves (panes may have moved since it was noted).
    mutating func left(_ id: DeviceID, now: Double, pane: Int? = nil) {
        guard var a = away.removeValue(forKey: id), now >= a.deadline else { return }
        if let pane { a.held.pane = pane }
        expired.append(Expired(token: a.token, held: a.held))
        if expired.count > Self.limit { expired.removeFirst(expired.count - Self.limit) }
    }

    /// A device registers with `token` and was not resumed: what it lost while it was
    /// away, if its grace period ran out. Once per token.
    mutating func claim(_ token: ResumeToken?) -> Held? {
        guard let token else { return nil }
        var found: Int? = nil
        // Every token compared in constant time, as the floor does (timing reveals nothing).
        for (i, t) in expired.enumerated() where t.token.constantTimeEquals(token) { found = i }
        guard let i = found else { return nil }
        return expired.remove(at: i).held
    }
}
