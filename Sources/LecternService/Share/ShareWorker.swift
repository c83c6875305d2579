import Dispatch
import Foundation
import LecternModel
import LecternSystem
import LecternProtocol
import LecternRender
import LecternRoom
import LecternShare
import LecternVideo
import NIOCore

/// The room's live shares off the room's core (docs/protocol.md §29): one `ShareSource` per
/// share (its decoder thread, the display loop's source), and the routes of media frames.
///
/// Media frames never go through `RoomCore`: a share-frame from a connection the core has
/// routed to a share (`RoomEffect.shareRoute`) goes straight to its source's queue from the
/// event loop (a lock, an append), and the source's acks, key-frame requests and advice come
/// back to that connection through the loop. So a share's bytes cost the room's loop their
/// copy out of the socket and nothing else: a page turn or a ping of anyone else waits for no
/// decoder, no JSON and no state. Confined to the room's loop (the sources are thread-safe).
final class ShareWorker {
    let stage: Stage
    let loop: EventLoop
    private let link: (ConnectionID) -> PeerLink?
    private let report: @Sendable (RoomEvent) -> Void
    private let clock: @Sendable () -> Double
    private var sources: [Int: ShareSource] = [:]
    private var routes: [ConnectionID: (serial: Int, device: DeviceID)] = [:]
    private var routeOf: [Int: (connection: ConnectionID, device: DeviceID)] = [:]
    private let work = DispatchQueue(label: "lectern.share.pictures", qos: .utility)
    private let pictureCache = SharePictureCache()
    /// Shares started, and the decoded and dropped counts of those that ended (`/metrics`).
    private var started = 0
    private var ended = (decoded: 0, dropped: 0)
    var limits = ShareLimits()
    /// Each share's decoder runs in a process of its own (`ShareDecoderProcess`), this
    /// lecternd with these limits; nil: in this process (no lecternd to start).
    var decoderProcess: (executable: String, limits: ShareDecoderProcess.Limits)?
    /// Where shares' sound plays (the clips' device and the room's volume).
    var sound: ClipSoundSource?
    /// The size a share is decoded at until it is in a pane (a waiting share's thumbnail).
    static let thumbnailSize = (width: 640, height: 360)

    init(
        stage: Stage, loop: EventLoop, link: @escaping (ConnectionID) -> PeerLink?, clock: @escaping @Sendable () -> Double,
        report: @escaping @Sendable (RoomEvent) -> Void
    ) {
        self.stage = stage
        self.loop = loop
        self.link = link
        self.clock = clock
        self.report = report
    }

    // MARK: the core's effects

    func start(serial: Int, _ config: ShareConfig) {
        let codec: ShareSource.Codec
        switch config.codec {
        case .h264: codec = .h264
        case .vp8: codec = .vp8
        case .vp9: codec = .vp9
        }
        var r = ShareSource.Reports()
        let loop = self.loop, report = self.report
        // The source's threads hand what goes to the sharer to the loop, where this worker lives.
        let me = NIOLoopBound(self, eventLoop: loop)
        r.ack = { seq, decoded, dropped, queued in
            let ack = ShareAck(
                sequence: seq, decoded: UInt32(clamping: decoded), dropped: UInt32(clamping: dropped), queuedBytes: UInt32(clamping: queued))
            loop.execute { me.value.send(serial, .ack(ack)) }
        }
        r.keyRequest = { seq in loop.execute { me.value.send(serial, .keyRequest(sequence: seq)) } }
        r.advice = { bitrate, fps, why in
            let reason: ShareAdvice.Reason = why == .network ? .network : why == .decoder ? .decoder : .recovered
            let a = ShareAdvice(bitrate: UInt32(clamping: bitrate), frameRate: UInt16(clamping: fps), reason: reason)
            loop.execute { me.value.send(serial, .advice(a)) }
        }
        r.failed = { why in
            let e: LecternError
            switch why {
            case .damaged(let d): e = .shareDamaged(d)
            case .stalled(let s): e = .shareStalled(seconds: s)
            case .overLimit(let d): e = .shareUnsupported(detail: 0, d + " The share has ended.")
            case .crashed(let d): e = .shareDamaged(d)
            }
            report(.shareFailed(serial: serial, e))
        }
        let flow = ShareFlow.Limits(
            maxQueuedBytes: limits.maxQueuedBytes, maxQueuedFrames: limits.maxQueuedFrames, bitrate: Int(config.bitrate),
            frameRate: Int(config.frameRate))
        let size = Self.thumbnailSize
        let background = stage.compositor.settings.background
        var decoding: (@Sendable () throws -> ShareDecoding)?
        if let (executable, processLimits) = decoderProcess {
            decoding = { try ShareDecoderProcess(executable: executable, limits: processLimits, background: background) }
        }
        var openSound: (@Sendable (Int) -> ShareSoundSink?)?
        if let sound = self.sound { openSound = { _ in sound.openShare() } }
        let source = ShareSource(
            codec: codec, limits: flow, maxSide: limits.maxSide, maxPixels: limits.maxPixels, stallSeconds: limits.stallSeconds,
            background: background, width: size.width, height: size.height, reports: r, decoding: decoding,
            sound: openSound)
        sources[serial] = source
        started += 1
        stage.attach(serial: serial, source)
        source.start()
    }

    func route(serial: Int, connection: ConnectionID?, device: DeviceID) {
        if let old = routeOf.removeValue(forKey: serial) { routes[old.connection] = nil }
        guard let connection else { return }
        routes[connection] = (serial, device)
        routeOf[serial] = (connection, device)
        sources[serial]?.restart()
    }

    func stop(serial: Int) {
        if let old = routeOf.removeValue(forKey: serial) { routes[old.connection] = nil }
        guard let s = sources.removeValue(forKey: serial) else { return }
        s.stop()
        let c = s.counts
        ended.decoded += c.decoded
        ended.dropped += c.dropped
        stage.detach(serial: serial)
    }

    /// Every share's decoder stops (the service stops).
    func stopAll() {
        for serial in Array(sources.keys) { stop(serial: serial) }
    }

    /// The newest picture of share `serial`, small, as JPEG pieces (the moderator's look
    /// before approving, §29.3; viewers following the wall, §29.8). A picture is encoded
    /// once a size: every viewer asking for it at that size while it is the newest gets the
    /// same bytes (`SharePictureCache`, on `work` alone).
    func picture(_ id: ConnectionID, tag: UInt16, serial: Int, maxWidth: Int, maxHeight: Int) {
        let source = sources[serial], report = self.report, cache = pictureCache
        work.async {
            guard let source, let f = source.newest else { return report(.previewRendered(id, tag: tag, .failure(.shareNoPicture))) }
            let size = Fit.previewSize(width: f.width, height: f.height, maxWidth: maxWidth, maxHeight: maxHeight)
            let key = SharePictureCache.Key(serial: serial, width: size.width, height: size.height)
            if let chunks = cache.chunks(key, picture: f) { return report(.previewRendered(id, tag: tag, .success(chunks))) }
            let small = f.scaled(width: size.width, height: size.height)
            guard let jpeg = JPEG.encode(small) else { return report(.previewRendered(id, tag: tag, .failure(.shareNoPicture))) }
            let chunks = ScreenshotChunk.split(png: jpeg, width: UInt32(small.width), height: UInt32(small.height))
            cache.keep(key, picture: f, chunks)
            report(.previewRendered(id, tag: tag, .success(chunks)))
        }
    }

    // MARK: media frames

    /// A frame from connection `id`: a share-frame of a routed share goes to its source
    /// (true); anything else is the room's (false), a malformed share-frame included.
    func take(_ id: ConnectionID, _ frame: WireFrame) -> Bool {
        let c = frame.header.command
        guard c == Command.shareFrame.rawValue || c == Command.shareAudio.rawValue, let r = routes[id], frame.header.deviceID == r.device,
            let source = sources[r.serial]
        else { return false }
        switch try? Message.decode(frame, sentBy: .client) {
        case .share(.frame(let f))?: source.push(sequence: f.sequence, key: f.key, timestamp: f.timestamp, data: f.data, now: clock())
        case .share(.audio(let a))?: source.pushAudio(timestamp: a.timestamp, channels: Int(a.channels), data: a.data)
        default: return false
        }
        return true
    }

    private func send(_ serial: Int, _ m: ShareMessage) {
        guard let r = routeOf[serial], let l = link(r.connection) else { return }
        l.write(Message.share(m).encode(tag: 0, deviceID: r.device))
    }

    /// Keeps share `serial`'s newest picture at `path` for the meeting record (§26): now, or
    /// `after` seconds from now (tried each second for up to 5 s while it has none yet).
    func recordFrame(serial: Int, path: String, after: Double, tries: Int = 5) {
        guard let source = sources[serial] else { return }
        guard after <= 0 else {
            // Bound to the loop this worker is confined to (scheduled there, run there).
            let retry = NIOLoopBound(
                { [weak self] in
                    guard let self, self.sources[serial] === source else { return }
                    if source.newest == nil, tries > 1 { return self.recordFrame(serial: serial, path: path, after: 1, tries: tries - 1) }
                    self.recordFrame(serial: serial, path: path, after: 0)
                }, eventLoop: loop)
            loop.scheduleTask(in: .milliseconds(Int64(after * 1000))) { retry.value() }
            return
        }
        guard let f = source.newest else { return }
        work.async {
            let size = Fit.previewSize(width: f.width, height: f.height, maxWidth: 960, maxHeight: 540)
            guard let jpeg = JPEG.encode(f.scaled(width: size.width, height: size.height)) else { return }
            try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try? AtomicFile.write(Data(jpeg), to: path)
        }
    }

    /// The meeting ended: the record's pictures go (after any still being written).
    func clearRecordFrames(_ directory: String) {
        work.async { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// What `/metrics` counts of the shares so far.
    var counts: ShareCounts {
        var c = ShareCounts(started: started, decoded: ended.decoded, dropped: ended.dropped)
        for (serial, s) in sources {
            let n = s.counts
            c.decoded += n.decoded
            c.dropped += n.dropped
            if let d = routeOf[serial]?.device { c.pictures[d] = s.pictures }
        }
        return c
    }

    /// The source of a share (tests, metrics).
    func source(serial: Int) -> ShareSource? { sources[serial] }
    var activeSources: [ShareSource] { Array(sources.values) }
}
