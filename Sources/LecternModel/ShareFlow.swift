/// The decisions of one live share's media path (docs/protocol.md §29.3): which received
/// media frames go to the decoder and which are dropped, when to ask the sender for a key
/// frame, and what bitrate and frame rate to advise it. A value: no threads, no clock, no
/// I/O; the share's shell (`ShareSource`) tells it what arrived and what the decoder did,
/// with the time, and carries out what it returns.
///
/// Never buffer to catch up: past `maxQueuedBytes` or `maxQueuedFrames` waiting for the
/// decoder, everything waiting is dropped and decoding starts again at the next key frame
/// (asked for at once); a frame whose reference was dropped is never decoded.
/// Back-pressure comes from what the service has handled, not from the sender's own
/// buffers: each frame's one-way delay (arrival time minus the sender's capture time, whose
/// clock offset cancels out against the smallest delay seen) grows when the network carries
/// less than is sent, and the advice is then three quarters of what actually arrived.
public struct ShareFlow: Sendable {
    public struct Limits: Sendable, Equatable {
        public var maxQueuedBytes: Int
        public var maxQueuedFrames: Int
        /// What the sender asked to send (the advice never goes above it).
        public var bitrate: Int
        public var frameRate: Int
        public init(maxQueuedBytes: Int, maxQueuedFrames: Int, bitrate: Int, frameRate: Int) {
            self.maxQueuedBytes = maxQueuedBytes; self.maxQueuedFrames = maxQueuedFrames
            self.bitrate = bitrate; self.frameRate = frameRate
        }
    }

    /// What happens to a frame that arrived.
    public enum Verdict: Sendable, Equatable {
        /// Into the decoder's queue.
        case decode
        /// Dropped (not decodable: its reference is gone, or the queue overran).
        case drop
    }

    public enum Effect: Sendable, Equatable {
        /// Drop every frame waiting for the decoder (their count is in `dropped` already).
        case flushQueue
        /// Ask the sender for a key frame: frames from `sequence` on could not be decoded.
        case requestKey(sequence: UInt32)
        /// Tell the sender to send at most this.
        case advise(bitrate: Int, frameRate: Int, reason: AdviceReason)
        /// The sender sends far more than it announced (frames or bits a second): the share
        /// ends, with this sentence.
        case overLimit(String)
    }

    public enum AdviceReason: Sendable, Equatable {
        case network, decoder, recovered
    }

    /// Delay past the smallest seen that counts as late (seconds), and for how long.
    public static let lateDelay = 0.25
    public static let lateFor = 0.5
    /// Delay under which the link counts as well again, and for how long before a raise.
    public static let wellDelay = 0.08
    public static let wellFor = 5.0
    /// Advice at most this often (seconds).
    public static let adviceInterval = 1.0
    /// A key frame asked for again if none came within this (seconds).
    public static let keyRequestInterval = 1.0
    public static let minBitrate = 300_000
    public static let minFrameRate = 5

    public let limits: Limits
    public private(set) var queuedBytes = 0
    public private(set) var queuedFrames = 0
    /// True until a key frame arrives (the start, and after a drop).
    public private(set) var waitingForKey = true
    /// The newest frame handled: decoded, or dropped.
    public private(set) var handledSequence: UInt32 = 0
    public private(set) var decoded = 0
    public private(set) var dropped = 0
    public private(set) var advisedBitrate: Int
    public private(set) var advisedFrameRate: Int
    private var lastSequence: UInt32?
    private var lastKeyRequest = -Double.infinity
    private var lastAdvice = -Double.infinity
    private var baseline = Double.infinity
    private var lateSince: Double?
    private var wellSince: Double?
    /// Bytes that arrived, with when: the last two seconds'.
    private var arrivals: [(at: Double, bytes: Int)] = []
    /// Smoothed seconds per decoded picture.
    private var decodeSeconds: Double?
    private var firstArrival: Double?

    public init(limits: Limits) {
        self.limits = limits
        advisedBitrate = limits.bitrate
        advisedFrameRate = limits.frameRate
    }

    /// A media frame arrived at `now` (monotonic seconds); `timestamp` is the sender's
    /// capture time in microseconds.
    public mutating func arrived(sequence: UInt32, key: Bool, bytes: Int, timestamp: UInt64, now: Double) -> (Verdict, [Effect]) {
        var effects: [Effect] = []
        let gap = lastSequence.map { sequence != $0 &+ 1 } ?? false
        lastSequence = sequence
        note(bytes: bytes, timestamp: timestamp, now: now, into: &effects)
        if gap && !key {
            // Frames missing in between (never on one connection; a sender that skipped
            // numbers): what follows can't be decoded until a key frame.
            waitingForKey = true
        }
        if waitingForKey && !key {
            dropFrame(sequence)
            askKey(from: sequence, now: now, into: &effects)
            return (.drop, effects)
        }
        if queuedFrames + 1 > limits.maxQueuedFrames || queuedBytes + bytes > limits.maxQueuedBytes {
            // The decoder is behind: nothing waits to be caught up with.
            dropped += queuedFrames
            queuedFrames = 0
            queuedBytes = 0
            effects.append(.flushQueue)
            advise(frameRate: max(Self.minFrameRate, advisedFrameRate * 2 / 3), reason: .decoder, now: now, into: &effects, force: true)
            if !key {
                waitingForKey = true
                dropFrame(sequence)
                askKey(from: sequence, now: now, into: &effects)
                return (.drop, effects)
            }
        }
        if key { waitingForKey = false }
        queuedFrames += 1
        queuedBytes += bytes
        return (.decode, effects)
    }

    /// The decoder took the frame `sequence` of `bytes` off the queue and decoded it in
    /// `seconds` (nil: it produced no picture, which is not an error by itself).
    public mutating func handled(sequence: UInt32, bytes: Int, seconds: Double?, now: Double) -> [Effect] {
        queuedFrames = max(0, queuedFrames - 1)
        queuedBytes = max(0, queuedBytes - bytes)
        handledSequence = sequence
        decoded += 1
        var effects: [Effect] = []
        if let s = seconds {
            let d = decodeSeconds.map { $0 * 0.8 + s * 0.2 } ?? s
            decodeSeconds = d
            let budget = 1.0 / Double(max(1, advisedFrameRate))
            if d > budget * 0.9 && advisedFrameRate > Self.minFrameRate {
                advise(frameRate: max(Self.minFrameRate, Int(0.8 / d)), reason: .decoder, now: now, into: &effects)
            }
        }
        return effects
    }

    /// Bytes a second that arrived over the last two seconds.
    public func receivedRate(now: Double) -> Int {
        let recent = arrivals.filter { $0.at > now - 2 }
        guard let first = recent.first else { return 0 }
        let span = max(0.5, now - first.at)
        return Int(Double(recent.reduce(0) { $0 + $1.bytes } * 8) / span)
    }

    private mutating func dropFrame(_ sequence: UInt32) {
        dropped += 1
        handledSequence = sequence
    }

    private mutating func askKey(from sequence: UInt32, now: Double, into effects: inout [Effect]) {
        guard now - lastKeyRequest >= Self.keyRequestInterval else { return }
        lastKeyRequest = now
        effects.append(.requestKey(sequence: sequence))
    }

    /// The frame's delay, and the advice it leads to.
    private mutating func note(bytes: Int, timestamp: UInt64, now: Double, into effects: inout [Effect]) {
        arrivals.append((now, bytes))
        if let i = arrivals.firstIndex(where: { $0.at > now - 2 }), i > 0 { arrivals.removeFirst(i) }
        let first = firstArrival ?? now
        firstArrival = first
        if now - first >= 2 {
            // Over a whole window of two seconds: twice what was announced, and some.
            let fps = Double(arrivals.count) / 2
            let fpsCap = Double(max(limits.frameRate * 2, limits.frameRate + 10))
            if fps > fpsCap {
                effects.append(.overLimit("The share sent \(Int(fps)) frames a second, more than the \(limits.frameRate) it announced."))
            }
            let bps = arrivals.reduce(0) { $0 + $1.bytes } * 8 / 2
            if bps > limits.bitrate * 2 + 1_000_000 {
                effects.append(.overLimit("The share sent \(bps / 1000) kbit/s, more than twice the \(limits.bitrate / 1000) it announced."))
            }
        }
        let delay = now - Double(timestamp) / 1_000_000
        baseline = min(baseline, delay)
        let excess = delay - baseline
        if excess > Self.lateDelay {
            wellSince = nil
            let since = lateSince ?? now
            lateSince = since
            if now - since >= Self.lateFor {
                let rate = max(Self.minBitrate, receivedRate(now: now) * 3 / 4)
                if rate < advisedBitrate { advise(bitrate: rate, reason: .network, now: now, into: &effects) }
            }
        } else {
            lateSince = nil
            if excess < Self.wellDelay {
                let since = wellSince ?? now
                wellSince = since
                if now - since >= Self.wellFor, now - lastAdvice >= Self.wellFor,
                    advisedBitrate < limits.bitrate || advisedFrameRate < limits.frameRate
                {
                    advise(
                        bitrate: min(limits.bitrate, advisedBitrate * 5 / 4), frameRate: min(limits.frameRate, advisedFrameRate + max(1, advisedFrameRate / 4)),
                        reason: .recovered, now: now, into: &effects, force: true)
                }
            } else {
                wellSince = nil
            }
        }
    }

    private mutating func advise(
        bitrate: Int? = nil, frameRate: Int? = nil, reason: AdviceReason, now: Double, into effects: inout [Effect], force: Bool = false
    ) {
        guard force || now - lastAdvice >= Self.adviceInterval else { return }
        let b = bitrate ?? advisedBitrate, f = frameRate ?? advisedFrameRate
        guard b != advisedBitrate || f != advisedFrameRate else { return }
        advisedBitrate = b
        advisedFrameRate = f
        lastAdvice = now
        effects.append(.advise(bitrate: b, frameRate: f, reason: reason))
    }
}
