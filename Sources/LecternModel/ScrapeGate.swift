/// Who holds the metrics endpoint's few connections (docs/protocol.md §25.1): at most
/// `connections` at once; a connection's request head must be complete within
/// `headTimeout`, the whole exchange within `exchangeTimeout`. When all places are taken, a
/// newcomer takes the place of the oldest connection that hasn't sent a complete head yet
/// (a slow or silent peer), so slow peers can't lock a scraper out; only when every place
/// holds a request being answered is the newcomer refused. Pure: ids and the time in.
public struct ScrapeGate: Sendable {
    public struct Limits: Equatable, Sendable {
        public var connections: Int
        public var headTimeout: Double
        public var exchangeTimeout: Double
        public init(connections: Int = 8, headTimeout: Double = 2, exchangeTimeout: Double = 10) {
            self.connections = max(1, connections)
            self.headTimeout = headTimeout
            self.exchangeTimeout = exchangeTimeout
        }
    }

    public enum Decision: Equatable, Sendable {
        /// In; close `evicting` first if set.
        case admit(evicting: Int?)
        case refuse
    }

    public let limits: Limits
    private var open: [Int: (since: Double, head: Bool)] = [:]

    public init(limits: Limits = Limits()) { self.limits = limits }

    public var count: Int { open.count }

    public mutating func arrive(_ id: Int, now: Double) -> Decision {
        var evicting: Int?
        if open.count >= limits.connections {
            guard let slow = open.filter({ !$0.value.head }).min(by: { ($0.value.since, $0.key) < ($1.value.since, $1.key) })?.key else { return .refuse }
            open[slow] = nil
            evicting = slow
        }
        open[id] = (now, false)
        return .admit(evicting: evicting)
    }

    /// The connection's request head is complete: it is answered, not evicted.
    public mutating func headReceived(_ id: Int) { open[id]?.head = true }

    public mutating func closed(_ id: Int) { open[id] = nil }

    /// Whether the connection is past its deadline at `now` (the shell closes it).
    public func expired(_ id: Int, now: Double) -> Bool {
        guard let c = open[id] else { return false }
        return now - c.since >= (c.head ? limits.exchangeTimeout : limits.headTimeout)
    }
}
