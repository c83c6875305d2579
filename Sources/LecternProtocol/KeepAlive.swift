/// Keep-alive bookkeeping for one connection (docs/protocol.md, "Keep-alive"). Pure:
/// the caller passes a monotonic `now` in seconds and polls, e.g. every 500 ms.
///
/// A ping is due when nothing has been sent, or nothing received, for `interval`
/// (2 s) and no ping went out within `interval`. The peer is dead when nothing has been
/// received for `timeout` (6 s). While the caller still has outbound bytes queued for
/// the peer (a peer receiving a large message answers pings late), the silence clock
/// does not run.
public struct KeepAlive: Equatable, Sendable {
    public enum Action: Equatable, Sendable {
        case none
        /// Send `ping` with this nonce.
        case sendPing(nonce: UInt32)
        /// Send error `timedOut` (if possible) and close.
        case timedOut
    }

    public let interval: Double
    public let timeout: Double
    public private(set) var lastReceived: Double
    public private(set) var lastSent: Double
    private var lastPing: Double = -Double.infinity
    private var nonce: UInt32 = 0

    public init(now: Double, interval: Double = ProtocolLimits.pingIntervalSeconds, timeout: Double = ProtocolLimits.peerTimeoutSeconds) {
        self.interval = interval
        self.timeout = timeout
        self.lastReceived = now
        self.lastSent = now
    }

    /// Call for every complete frame received (any command).
    public mutating func noteReceived(now: Double) { lastReceived = max(lastReceived, now) }
    /// Call for every frame sent.
    public mutating func noteSent(now: Double) { lastSent = max(lastSent, now) }

    public mutating func poll(now: Double, outboundPending: Bool = false) -> Action {
        if outboundPending { lastReceived = max(lastReceived, now) }
        if now - lastReceived >= timeout { return .timedOut }
        let idle = now - lastSent >= interval || now - lastReceived >= interval
        if idle && now - lastPing >= interval {
            lastPing = now
            lastSent = now
            nonce &+= 1
            return .sendPing(nonce: nonce)
        }
        return .none
    }

    /// The latest time the caller should poll again.
    public var nextPoll: Double {
        min(lastReceived + timeout, max(min(lastSent, lastReceived) + interval, lastPing + interval))
    }
}
