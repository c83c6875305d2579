/// How many TLS handshakes one address may make (docs/protocol.md §25.5): each address has
/// a bucket of `burst` handshakes, refilled at `perSecond`; a ClientHello from an address
/// whose bucket is empty is not answered (the connection is closed before any TLS work).
/// NAT-friendly: a room behind one address can reconnect everything it may hold at once
/// (`burst` is twice the per-address connection limit), and keep joining at `perSecond`;
/// one address can no longer keep the appliance's one event loop busy with handshakes.
/// IPv6 addresses count per /64 (one host has a whole /64). Pure: the time is an argument.
public struct HandshakeBudget: Sendable {
    public struct Limits: Equatable, Sendable {
        public var burst: Double
        public var perSecond: Double
        /// Addresses remembered at most; past it the one unused longest is forgotten.
        public var addresses: Int
        public init(burst: Double, perSecond: Double, addresses: Int = 4096) {
            self.burst = max(1, burst)
            self.perSecond = max(0.1, perSecond)
            self.addresses = max(1, addresses)
        }

        /// From the per-address connection limit: twice it at once, half of it a second.
        public static func forConnections(perAddress n: Int) -> Limits {
            Limits(burst: Double(2 * max(1, n)), perSecond: Double(max(1, n)) / 2)
        }
    }

    public let limits: Limits
    private var buckets: [String: (tokens: Double, at: Double)] = [:]

    public init(limits: Limits) { self.limits = limits }

    /// May `address` make a handshake now? Takes one from its bucket when it may.
    public mutating func allow(address: String, now: Double) -> Bool {
        let key = Self.key(address)
        var b = buckets[key] ?? (limits.burst, now)
        b.tokens = min(limits.burst, b.tokens + max(0, now - b.at) * limits.perSecond)
        b.at = now
        let ok = b.tokens >= 1
        if ok { b.tokens -= 1 }
        if buckets[key] == nil, buckets.count >= limits.addresses { forgetOne(now: now) }
        buckets[key] = b
        return ok
    }

    /// Addresses remembered now.
    public var count: Int { buckets.count }

    /// Drops the buckets that are full again, or else the one unused longest.
    private mutating func forgetOne(now: Double) {
        let full = buckets.filter { $0.value.tokens + (now - $0.value.at) * limits.perSecond >= limits.burst }.map(\.key)
        if !full.isEmpty {
            for k in full { buckets[k] = nil }
            return
        }
        if let oldest = buckets.min(by: { $0.value.at < $1.value.at })?.key { buckets[oldest] = nil }
    }

    /// The bucket an address counts in: itself, or an IPv6 address's first 64 bits.
    static func key(_ address: String) -> String {
        guard address.contains(":") else { return address }
        var groups = address.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        // Expand "::" so that the first four groups are the /64.
        if let gap = groups.firstIndex(of: ""), address.contains("::") {
            let present = groups.filter { !$0.isEmpty }
            let missing = max(0, 8 - present.count)
            groups = Array(groups[..<gap].filter { !$0.isEmpty }) + Array(repeating: "0", count: missing) + Array(groups[(gap + 1)...].filter { !$0.isEmpty })
        }
        return groups.prefix(4).map { $0.lowercased() }.joined(separator: ":") + "::/64"
    }
}
