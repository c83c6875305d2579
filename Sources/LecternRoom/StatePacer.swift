/// When a client gets the newest state (docs/protocol.md §14.1): state pushes are
/// coalesced per client, whatever causes them (ink, polls, joins, the screen). The first
/// push after a quiet `interval` goes at once; pushes within the window after it are
/// folded into one, sent when the window ends, carrying the newest state (the newest
/// wins). A client that isn't reading (over its output budget) is owed the newest state
/// and gets it once it reads again. A `prompt` push (a presenter's page turn, a floor
/// change, for the floor's devices) goes at once, window or not. Pure: time is passed in.
public struct StatePacer: Equatable, Sendable {
    /// At most one push per client per this many seconds (but prompt ones).
    public static let interval = 0.1

    public private(set) var lastSent = -Double.infinity
    /// A newer state than the last one sent waits for this client.
    public private(set) var owed = false

    public init() {}

    /// A new state for this client at `now`: true, send it now (it counts as sent);
    /// false, it is owed (`dueAt` says when it may go).
    public mutating func offer(now: Double, writable: Bool, prompt: Bool = false, interval: Double = StatePacer.interval) -> Bool {
        if writable && (prompt || now - lastSent >= interval) {
            sent(now: now)
            return true
        }
        owed = true
        return false
    }

    /// When the owed state may go (nil: none owed). Only while the client reads.
    public func dueAt(interval: Double = StatePacer.interval) -> Double? { owed ? lastSent + interval : nil }

    /// The window passed, or the client reads again: true, send the newest state now.
    public mutating func poll(now: Double, writable: Bool, interval: Double = StatePacer.interval) -> Bool {
        guard owed, writable, now >= lastSent + interval else { return false }
        sent(now: now)
        return true
    }

    /// The state went to the client by another way (its reply to register): counts as sent.
    public mutating func sent(now: Double) {
        lastSent = now
        owed = false
    }
}
