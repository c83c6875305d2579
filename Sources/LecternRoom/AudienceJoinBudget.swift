/// How many new viewer identities one address gets (docs/protocol.md §24.1): a person in
/// the audience is its device token (the resume token of its register-ok, kept across
/// reconnects and restarts), and fresh tokens are rationed per address, so one host
/// can't make itself a crowd of voters. Each address may be given `burst` new identities
/// at once, then one more every `refillSeconds`; a viewer that comes back with a token
/// the room knows costs nothing. A room behind one NAT gets `burst` phones joining at
/// once, then the rest at one every `refillSeconds`. Bounded: at most `maxAddresses`
/// addresses are remembered (those whose budget is full again are forgotten first).
/// Pure: time is passed in.
public struct AudienceJoinBudget: Equatable, Sendable {
    public static let maxAddresses = 4096

    public let burst: Int
    public let refillSeconds: Double
    private var buckets: [String: Bucket] = [:]

    struct Bucket: Equatable {
        var tokens: Double
        var at: Double
    }

    public init(burst: Int, refillSeconds: Double) {
        self.burst = max(1, burst)
        self.refillSeconds = max(0.001, refillSeconds)
    }

    public var addresses: Int { buckets.count }

    /// A new identity for `address` at `now`: nil, given (and counted); else the seconds
    /// to wait for the next one.
    public mutating func take(_ address: String, now: Double) -> Double? {
        var b = refilled(buckets[address], now: now)
        guard b.tokens >= 1 else {
            buckets[address] = b
            return (1 - b.tokens) * refillSeconds
        }
        b.tokens -= 1
        buckets[address] = b
        if buckets.count > Self.maxAddresses { prune(now: now) }
        return nil
    }

    private func refilled(_ b: Bucket?, now: Double) -> Bucket {
        guard let b else { return Bucket(tokens: Double(burst), at: now) }
        return Bucket(tokens: min(Double(burst), b.tokens + max(0, now - b.at) / refillSeconds), at: now)
    }

    private mutating func prune(now: Double) {
        buckets = buckets.filter { refilled($0.value, now: now).tokens < Double(burst) }
        while buckets.count > Self.maxAddresses, let oldest = buckets.min(by: { $0.value.at < $1.value.at }) {
            buckets[oldest.key] = nil
        }
    }
}
