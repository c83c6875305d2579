import LecternProtocol

/// After the moderator removes a presenter, the same device (its address and name) can't
/// join again for `seconds` (config `remove_cooldown`; 0: no cool-down): a removal isn't
/// undone 0.4 s later by a page that simply joins again. Moderators are never held back.
/// Pure data; at most `capacity` entries (the oldest-ending go first), expired ones pruned.
struct RemovalCooldown: Equatable, Sendable {
    struct Key: Hashable {
        let address: String
        let name: String
    }

    var seconds: Double
    let capacity: Int
    private var until: [Key: Double] = [:]

    init(seconds: Double, capacity: Int = 1024) {
        self.seconds = seconds
        self.capacity = capacity
    }

    var count: Int { until.count }

    mutating func removed(address: String, name: String, now: Double) {
        guard seconds > 0 else { return }
        prune(now: now)
        if until.count >= capacity, let first = until.min(by: { $0.value < $1.value }) { until[first.key] = nil }
        until[Key(address: address, name: name)] = now + seconds
    }

    /// Seconds left before this device may join again, or nil.
    mutating func remaining(address: String, name: String, now: Double) -> Double? {
        let key = Key(address: address, name: name)
        guard let end = until[key] else { return nil }
        guard end > now else {
            until[key] = nil
            return nil
        }
        return end - now
    }

    private mutating func prune(now: Double) { until = until.filter { $0.value > now } }
}
