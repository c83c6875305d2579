import Dispatch
import Foundation
import LecternCore
import LecternProtocol
import LecternRender
import LecternRoom
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
    let limits = ShareLimits()
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
            }
            report(.shareFailed(serial: serial, e))
        }
        let flow = ShareFlow.Limits(
            maxQueuedBytes: limits.maxQueuedBytes, maxQueuedFrames: limits.maxQueuedFrames, bitrate: Int(config.bitrate),
            frameRate: Int(config.frameRate))
        let size = Self.thumbnailSize
        let source = ShareSource(
            codec: codec, limits: flow, maxSide: limits.maxSide, maxPixels: limits.maxPixels, stallSeconds: limits.stallSeconds,
            background: stage.compositor.settings.background, width: size.width, height: size.height, reports: r)
        sources[serial] = source
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
        stage.detach(serial: serial)
    }

    /// Every share's decoder stops (the service stops).
    func stopAll() {
        for serial in Array(sources.keys) { stop(serial: serial) }
    }

    /// The newest picture of share `serial`, small, as JPEG pieces (the moderator's look
    /// before approving, §29.3).
    func picture(_ id: ConnectionID, tag: UInt16, serial: Int, maxWidth: Int, maxHeight: Int) {
        let source = sources[serial], report = self.report
        work.async {
            guard let f = source?.newest else { return report(.previewRendered(id, tag: tag, .failure(.shareNoPicture))) }
            let size = Fit.previewSize(width: f.width, height: f.height, maxWidth: maxWidth, maxHeight: maxHeight)
            let small = f.scaled(width: size.width, height: size.height)
            guard let jpeg = JPEG.encode(small) else { return report(.previewRendered(id, tag: tag, .failure(.shareNoPicture))) }
            report(.previewRendered(id, tag: tag, .success(ScreenshotChunk.split(png: jpeg, width: UInt32(small.width), height: UInt32(small.height)))))
        }
    }

    // MARK: media frames

    /// A frame from connection `id`: a share-frame of a routed share goes to its source
    /// (true); anything else is the room's (false), a malformed share-frame included.
    func take(_ id: ConnectionID, _ frame: WireFrame) -> Bool {
        guard frame.header.command == Command.shareFrame.rawValue, let r = routes[id], frame.header.deviceID == r.device,
            let source = sources[r.serial]
        else { return false }
        guard case .share(.frame(let f))? = try? Message.decode(frame, sentBy: .client) else { return false }
        source.push(sequence: f.sequence, key: f.key, timestamp: f.timestamp, data: f.data, now: clock())
        return true
    }

    private func send(_ serial: Int, _ m: ShareMessage) {
        guard let r = routeOf[serial], let l = link(r.connection) else { return }
        l.write(Message.share(m).encode(tag: 0, deviceID: r.device))
    }

    /// The source of a share (tests, metrics).
    func source(serial: Int) -> ShareSource? { sources[serial] }
    var activeSources: [ShareSource] { Array(sources.values) }
}
