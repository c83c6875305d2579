/// The life of one plain HTTP connection of the web remote (docs/protocol.md, "Limits").
/// Pure: the shell (`WebHTTPHandler`) passes a monotonic `now` in seconds with every event
/// and asks again at `deadline`.
///
/// - A new connection's first request head must be complete within `headTimeout` (5 s).
/// - After a response, the next request head must be complete within `idleTimeout` (30 s):
///   an idle keep-alive connection is closed then.
/// - One request at a time: the next request is answered only once the previous response
///   has been written out and the connection is writable (`mayAnswer`); meanwhile the shell
///   reads nothing more, so a peer that sends requests and never reads costs one response.
/// - A connection that doesn't take a response within `stallTimeout` (5 s), or stays
///   unwritable that long, is closed; a long response (a download) counts from the last
///   piece the peer took (`responseProgressed`).
public struct HTTPConnectionPolicy: Sendable {
    public enum Action: Equatable, Sendable {
        case none
        /// Close the connection: no request head in time.
        case closeHeadTimeout
        /// Close the connection: idle for too long between requests.
        case closeIdle
        /// Close the connection: it has not taken what was written in time.
        case closeStalled
    }

    public let headTimeout: Double
    public let idleTimeout: Double
    public let stallTimeout: Double

    /// When waiting for a head started, and whether a response was sent before.
    private var waitingSince: Double?
    private var servedBefore = false
    /// A response is still being written out.
    public private(set) var writing = false
    public private(set) var writable = true
    /// Since when the connection could not take what was written.
    private var stalledSince: Double?

    public init(now: Double, headTimeout: Double = 5, idleTimeout: Double = 30, stallTimeout: Double = 5) {
        self.headTimeout = headTimeout
        self.idleTimeout = idleTimeout
        self.stallTimeout = stallTimeout
        waitingSince = now
    }

    /// A complete request head arrived.
    public mutating func headReceived(now: Double) { waitingSince = nil }

    /// A response is written (its bytes queued).
    public mutating func responseStarted(now: Double) {
        writing = true
        updateStall(now)
    }

    /// The response's last bytes went out.
    public mutating func responseWritten(now: Double) {
        writing = false
        servedBefore = true
        waitingSince = now
        updateStall(now)
    }

    /// Part of a long response (a download) was taken by the peer: its stall clock starts
    /// again. A peer that takes nothing for `stallTimeout` is still closed.
    public mutating func responseProgressed(now: Double) {
        if writing && writable { stalledSince = now }
    }

    public mutating func writabilityChanged(_ on: Bool, now: Double) {
        writable = on
        updateStall(now)
    }

    /// May the next request be answered (and more be read) now?
    public var mayAnswer: Bool { !writing && writable }

    public func poll(now: Double) -> Action {
        if let s = stalledSince, now - s >= stallTimeout { return .closeStalled }
        if let w = waitingSince, !writing {
            if now - w >= (servedBefore ? idleTimeout : headTimeout) { return servedBefore ? .closeIdle : .closeHeadTimeout }
        }
        return .none
    }

    /// When `poll` may next say something other than `.none` (nil: not before an event).
    public var deadline: Double? {
        var d: Double?
        if let s = stalledSince { d = s + stallTimeout }
        if let w = waitingSince, !writing {
            let t = w + (servedBefore ? idleTimeout : headTimeout)
            d = min(d ?? t, t)
        }
        return d
    }

    private mutating func updateStall(_ now: Double) {
        if writing || !writable {
            if stalledSince == nil { stalledSince = now }
        } else {
            stalledSince = nil
        }
    }
}
