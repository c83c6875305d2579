import Dispatch
import Foundation
import LecternModel
import LecternSystem
import Synchronization

/// A live share as a moving source of a pane (docs/protocol.md §29): encoded pictures are
/// pushed in as they arrive (`push`, from the event loop, never waiting), a decoder thread of
/// its own decodes them in order and scales the newest into a buffer of the pane's size (the
/// picture fitted, exact bars), and the display loop takes the newest at each refresh without
/// waiting (`frame(forRefreshAt:refreshPeriod:)`). Nothing is buffered to catch up: what
/// goes to the decoder or is dropped, the key frames asked for and the advice sent are
/// `ShareFlow`'s decisions.
///
/// A stall or a crash costs only this share: its `ShareDecoding` (in the service, a decoder
/// process of its own, `ShareDecoderProcess`, drawing the pictures into memory shared with
/// this process) is driven from the share's own thread, with a watchdog: a picture that
/// takes longer than `stallSeconds` to decode ends the share (`.stalled`; a decoder process
/// is killed), a decoder process that dies ends it (`.crashed`); any error the decoder
/// reports, a picture over the size limit or a sender far over what it announced ends the
/// share too.
public final class ShareSource: PaneVideoSource {
    public enum Codec: Sendable { case h264, vp8, vp9 }

    public enum Failure: Error, Sendable, Equatable {
        case damaged(String)
        case stalled(seconds: Double)
        case overLimit(String)
        /// The decoder's process died (a crash, its memory or CPU limit, a kill from outside).
        case crashed(String)
    }

    /// What the source tells its share (called on the decoder thread, or on the thread that
    /// pushed: hop to where the connection lives).
    public struct Reports: Sendable {
        public var ack: @Sendable (_ sequence: UInt32, _ decoded: Int, _ dropped: Int, _ queuedBytes: Int) -> Void = { _, _, _, _ in }
        public var keyRequest: @Sendable (_ sequence: UInt32) -> Void = { _ in }
        public var advice: @Sendable (_ bitrate: Int, _ frameRate: Int, _ reason: ShareFlow.AdviceReason) -> Void = { _, _, _ in }
        /// Once, when the share can't go on.
        public var failed: @Sendable (Failure) -> Void = { _ in }
        /// A picture was decoded, with how long it took (seconds).
        public var decoded: @Sendable (Double) -> Void = { _ in }
        public init() {}
    }

    struct Packet {
        let sequence: UInt32
        let data: [UInt8]
        /// Capture time, the sender's seconds.
        let capture: Double
    }

    struct AudioPacket {
        let data: [UInt8]
        let channels: Int
        let capture: Double
    }

    /// Pictures kept waiting for their sound (lip sync, §29.9): about 160 ms at 30 fps.
    public static let syncQueue = 5
    /// Sound packets waiting for the decoder, at most (0.5 s of 20 ms packets): past it the
    /// oldest go (never queued to catch up).
    static let audioQueue = 25

    struct State {
        var flow: ShareFlow
        var packets: [Packet] = []
        var width: Int
        var height: Int
        /// The newest picture scaled, and whether the display loop has it yet.
        var newest: Frame?
        var newestTaken = true
        /// A new route: the decoder starts again (the thread makes a new one).
        var generation = 0
        /// When the decoder started on the picture it is decoding (nil: idle).
        var busySince: Double?
        var ended = false
        var presented = 0
        /// Sound packets to decode; the sound's sink (nil: none yet, or no device).
        var audio: [AudioPacket] = []
        var sound: ShareSoundSink?
        var soundTried = false
        var audioDropped = 0
        /// Pictures with their capture times, oldest first, waiting for their sound.
        var synced: [(frame: Frame, capture: Double)] = []
        /// The capture time of the picture last taken with its sound (nil: none, or no sound).
        var shownCapture: Double?
        /// Pictures decoded and handed to the display loop (the frame rate's count).
        var pictures = 0
        var decoderProcessID: Int32?
    }

    public let codec: Codec
    public let limits: ShareFlow.Limits
    let maxSide: Int
    let maxPixels: Int
    let stallSeconds: Double
    let background: RGB
    private let reports: Reports
    private let state: Mutex<State>
    private let bell = DispatchSemaphore(value: 0)
    private let watchdog = Mutex<DispatchSourceTimer?>(nil)
    private let startedOnce = Atomic<Bool>(false)
    /// Makes the decoding on the decode loop's thread (a decoder process is started there,
    /// not on the caller's).
    let makeDecoding: @Sendable () throws -> ShareDecoding
    /// Opens the share's sound output (for so many channels), once, at its first sound.
    let makeSound: (@Sendable (Int) -> ShareSoundSink?)?

    /// `decoding` nil: in this process (`InProcessShareDecoding`).
    public init(
        codec: Codec, limits: ShareFlow.Limits, maxSide: Int, maxPixels: Int, stallSeconds: Double, background: RGB,
        width: Int, height: Int, reports: Reports, decoding: (@Sendable () throws -> ShareDecoding)? = nil,
        sound: (@Sendable (Int) -> ShareSoundSink?)? = nil
    ) {
        makeSound = sound
        makeDecoding = decoding ?? { InProcessShareDecoding(maxSide: maxSide, maxPixels: maxPixels, background: background) }
        self.codec = codec
        self.limits = limits
        self.maxSide = maxSide
        self.maxPixels = maxPixels
        self.stallSeconds = stallSeconds
        self.background = background
        self.reports = reports
        state = Mutex(State(flow: ShareFlow(limits: limits), width: max(1, width), height: max(1, height)))
    }

    /// Starts the decoder thread and the watchdog (once).
    public func start() {
        guard startedOnce.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        let thread = Thread { [self] in
            ThreadName.set("lectern.share")   // the name the kernel shows (/proc, top -H)
            ShareDecodeLoop(source: self).run()
        }
        thread.name = "lectern.share"
        thread.start()
        watchdog.withLock { watchdog in
            let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
            timer.schedule(deadline: .now() + 0.25, repeating: 0.25)
            timer.setEventHandler { [weak self] in self?.checkStall() }
            timer.resume()
            watchdog = timer
        }
    }

    /// Ends the share's decoding: the thread stops after the picture it is on.
    public func stop() {
        let sound = state.withLock { s -> ShareSoundSink? in
            s.ended = true
            s.packets = []
            s.audio = []
            s.synced = []
            defer { s.sound = nil }
            return s.sound
        }
        sound?.stop()
        watchdog.withLock {
            $0?.cancel()
            $0 = nil
        }
        bell.signal()
    }

    /// A new sender (a reconnect, a new share-begin): decoding starts again at its next key
    /// frame; the picture on the wall stays until then.
    public func restart() {
        state.withLock {
            $0.flow = ShareFlow(limits: limits)
            $0.packets = []
            $0.generation += 1
        }
        bell.signal()
    }

    /// An encoded picture arrived (at `now`, monotonic seconds). Never waits for the decoder.
    public func push(sequence: UInt32, key: Bool, timestamp: UInt64, data: [UInt8], now: Double) {
        let (verdict, effects, ack) = state.withLock { s -> (ShareFlow.Verdict, [ShareFlow.Effect], (UInt32, Int, Int, Int)?) in
            guard !s.ended else { return (.drop, [], nil) }
            let (v, e) = s.flow.arrived(sequence: sequence, key: key, bytes: data.count, timestamp: timestamp, now: now)
            if e.contains(.flushQueue) { s.packets = [] }
            if v == .decode { s.packets.append(Packet(sequence: sequence, data: data, capture: Double(timestamp) / 1e6)) }
            let f = s.flow
            return (v, e, v == .drop ? (f.handledSequence, f.decoded, f.dropped, f.queuedBytes) : nil)
        }
        carry(effects)
        if verdict == .decode { bell.signal() }
        if let a = ack { reports.ack(a.0, a.1, a.2, a.3) }
    }

    /// A piece of the share's sound arrived. Never waits; past `audioQueue` waiting the
    /// oldest goes.
    public func pushAudio(timestamp: UInt64, channels: Int, data: [UInt8]) {
        let queued = state.withLock { s -> Bool in
            guard !s.ended else { return false }
            s.audio.append(AudioPacket(data: data, channels: channels, capture: Double(timestamp) / 1e6))
            if s.audio.count > Self.audioQueue {
                s.audio.removeFirst(s.audio.count - Self.audioQueue)
                s.audioDropped += 1
            }
            return true
        }
        if queued { bell.signal() }
    }

    /// Decoded sound to its sink (opened at the first, on the decode loop's thread).
    func play(_ samples: [Int16], capture: Double, channels: Int) {
        let (sink, open) = state.withLock { s -> (ShareSoundSink?, Bool) in
            if s.ended { return (nil, false) }
            if s.sound == nil && !s.soundTried {
                s.soundTried = true
                return (nil, true)
            }
            return (s.sound, false)
        }
        var out = sink
        if open, let made = makeSound?(channels) {
            let kept = state.withLock { s -> Bool in
                guard !s.ended else { return false }
                s.sound = made
                return true
            }
            if kept { out = made } else { made.stop() }
        }
        out?.push(samples, capture: capture)
    }

    func carry(_ effects: [ShareFlow.Effect]) {
        for e in effects {
            switch e {
            case .flushQueue: break
            case .requestKey(let s): reports.keyRequest(s)
            case .advise(let b, let f, let why): reports.advice(b, f, why)
            case .overLimit(let why): fail(.overLimit(why))
            }
        }
    }

    /// Ends the share once, telling why.
    func fail(_ why: Failure) {
        let (first, sound) = state.withLock { s -> (Bool, ShareSoundSink?) in
            guard !s.ended else { return (false, nil) }
            s.ended = true
            s.packets = []
            s.audio = []
            defer { s.sound = nil }
            return (true, s.sound)
        }
        guard first else { return }
        sound?.stop()
        watchdog.withLock {
            $0?.cancel()
            $0 = nil
        }
        bell.signal()
        reports.failed(why)
    }

    private func checkStall() {
        let stalled = state.withLock { s -> Bool in
            guard !s.ended, let since = s.busySince else { return false }
            return MonotonicClock.now() - since > stallSeconds
        }
        // A decoder process is killed by its own deadline (the same), on the loop's thread;
        // an in-process decoder's thread is left to finish alone and frees its decoder then.
        if stalled { fail(.stalled(seconds: stallSeconds)) }
    }

    // MARK: PaneVideoSource (the display loop's side)

    public func frame(forRefreshAt refresh: Double, refreshPeriod: Double) -> Frame? {
        state.withLock { s in
            // With sound: the newest picture whose sound is heard by this refresh (the
            // picture waits for its sound; a picture whose sound is late is shown anyway
            // once `syncQueue` newer ones wait).
            if let sound = s.sound, !s.synced.isEmpty, sound.heard(capture: s.synced[0].capture) != nil {
                var pick: Int?
                for (i, p) in s.synced.enumerated() {
                    guard let at = sound.heard(capture: p.capture), at <= refresh + refreshPeriod / 2 else { break }
                    pick = i
                }
                guard let i = pick else { return nil }
                let f = s.synced[i].frame
                s.shownCapture = s.synced[i].capture
                s.synced.removeFirst(i + 1)
                s.newestTaken = s.synced.isEmpty
                return f.width == s.width && f.height == s.height ? f : nil
            }
            guard !s.newestTaken, let f = s.newest, f.width == s.width, f.height == s.height else { return nil }
            s.newestTaken = true
            s.synced = []
            return f
        }
    }

    public func presented(at time: Double) {
        state.withLock { $0.presented += 1 }
    }

    public func resize(width: Int, height: Int) {
        state.withLock {
            guard $0.width != width || $0.height != height else { return }
            $0.width = max(1, width)
            $0.height = max(1, height)
        }
        bell.signal()
    }

    // MARK: for the room (thumbnails), tests and metrics

    /// The newest picture decoded, as drawn for its pane (nil: none yet).
    public var newest: Frame? { state.withLock { $0.newest } }

    /// Pictures decoded and dropped so far, and handed to the display loop.
    public var counts: (decoded: Int, dropped: Int, presented: Int) {
        state.withLock { ($0.flow.decoded, $0.flow.dropped, $0.presented) }
    }

    /// Pictures decoded and drawn for the pane so far (a picture a frame the sender sent).
    public var pictures: Int { state.withLock { $0.pictures } }

    /// The decoder's process id while it runs (nil: none, or decoding in this process).
    public var decoderProcessID: Int32? { state.withLock { $0.decoderProcessID } }

    public var isEnded: Bool { state.withLock { $0.ended } }

    /// The capture time (the sender's seconds) of the picture the display loop last took
    /// with its sound; nil without sound (tests of lip sync).
    public var shownCapture: Double? { state.withLock { $0.shownCapture } }

    // MARK: the decoder thread's side

    func withState<R: Sendable>(_ body: (inout State) -> R) -> R { state.withLock { body(&$0) } }

    /// Waits up to `seconds` for a packet (or a stop).
    func waitForWork(seconds: Double) { _ = bell.wait(timeout: .now() + seconds) }

    var reportsForLoop: Reports { reports }
}
