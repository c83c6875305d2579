import LecternModel

/// Live sharing (docs/protocol.md §29): a device streams a screen, a camera or a file's
/// video to the wall as encoded media frames; the service decodes them and shows the
/// newest in a pane. Carried in `Message.share`.
public enum ShareMessage: Equatable, Sendable {
    /// 0xD0: starts (or, after a reconnect, resumes) this device's share; share-ready.
    case begin(ShareConfig)
    /// 0xD1: the share is live in a pane, or waits for the moderator.
    case ready(ShareReady)
    /// 0xD2: one encoded picture. No success reply.
    case frame(ShareFrame)
    /// 0xD3: the service has handled media frames up to `sequence` (decoded or dropped).
    case ack(ShareAck)
    /// 0xD4: send a key frame next (frames from `sequence` on could not be decoded).
    case keyRequest(sequence: UInt32)
    /// 0xD5: send at most this bitrate and frame rate from now on.
    case advice(ShareAdvice)
    /// 0xD6: pause, resume or stop the sender's own share; ok.
    case control(ShareAction)
    /// 0xD7: the moderator approves, places or ends a device's share; ok.
    case moderate(device: DeviceID, ShareModeration)
    /// 0xD8: the sender's share has ended, and why (an error body; tag 0).
    case ended(LecternError)
    /// 0xD9: the newest picture of a device's share, small (JPEG); screenshot-data.
    case picture(device: DeviceID, maxWidth: UInt16, maxHeight: UInt16)
    /// 0xDA: one encoded piece of the share's sound (Opus). No success reply.
    case audio(ShareAudio)

    public var command: Command {
        switch self {
        case .begin: .shareBegin
        case .ready: .shareReady
        case .frame: .shareFrame
        case .ack: .shareAck
        case .keyRequest: .shareKeyRequest
        case .advice: .shareAdvice
        case .control: .shareControl
        case .moderate: .shareModerate
        case .ended: .shareEnded
        case .picture: .sharePicture
        case .audio: .shareAudio
        }
    }

    func encode(_ w: inout ByteWriter) {
        switch self {
        case .begin(let c):
            w.u8(c.codec.rawValue); w.u8(c.source.rawValue); w.u8(c.placement.rawValue); w.u8(0)
            w.u16(c.width); w.u16(c.height); w.u16(c.frameRate); w.u32(c.bitrate)
        case .ready(let r):
            w.u8(r.status.rawValue); w.u8(r.pane.map { UInt8(clamping: $0) } ?? 0xFF); w.u16(r.frameRate); w.u32(r.bitrate)
        case .frame(let f):
            w.u8(f.key ? 1 : 0); w.u8(0); w.u16(0); w.u32(f.sequence); w.u64(f.timestamp); w.bytes(f.data)
        case .ack(let a):
            w.u32(a.sequence); w.u32(a.decoded); w.u32(a.dropped); w.u32(a.queuedBytes)
        case .keyRequest(let s): w.u32(s)
        case .advice(let a): w.u32(a.bitrate); w.u16(a.frameRate); w.u8(a.reason.rawValue); w.u8(0)
        case .control(let a): w.u8(a.rawValue)
        case .moderate(let d, let m): w.u8(d); w.u8(m.rawValue)
        case .ended(let e): Body.error(e, &w)
        case .picture(let d, let mw, let mh): w.u8(d); w.u8(0); w.u16(mw); w.u16(mh)
        case .audio(let a):
            w.u8(a.codec.rawValue); w.u8(a.channels); w.u16(0); w.u32(a.sequence); w.u64(a.timestamp); w.bytes(a.data)
        }
    }

    static func decode(_ command: Command, _ r: inout ByteReader) throws -> ShareMessage {
        switch command {
        case .shareBegin:
            let codec = try r.u8(), source = try r.u8(), placement = try r.u8()
            _ = try r.u8()
            guard let c = ShareCodec(rawValue: codec) else { throw WireError.invalid("codec \(codec) is not 1 (H.264), 2 (VP8) or 3 (VP9)") }
            guard let s = ShareSourceKind(rawValue: source) else { throw WireError.invalid("source \(source) is not 1 (screen), 2 (camera) or 3 (file)") }
            guard let p = SharePlacement(rawValue: placement) else { throw WireError.invalid("placement \(placement) is not 0 (where I drive) or 1 (beside)") }
            return .begin(
                ShareConfig(
                    codec: c, source: s, placement: p, width: try r.u16(), height: try r.u16(), frameRate: try r.u16(), bitrate: try r.u32()))
        case .shareReady:
            let s = try r.u8(), pane = try r.u8()
            guard let status = ShareReady.Status(rawValue: s) else { throw WireError.invalid("status \(s) is not 1 (live) or 2 (waiting)") }
            return .ready(ShareReady(status: status, pane: pane == 0xFF ? nil : Int(pane), frameRate: try r.u16(), bitrate: try r.u32()))
        case .shareFrame:
            let flags = try r.u8()
            _ = try r.u8()
            _ = try r.u16()
            let seq = try r.u32(), ts = try r.u64()
            let data = r.rest()
            guard !data.isEmpty else { throw WireError.invalid("a share-frame carries no media data") }
            return .frame(ShareFrame(sequence: seq, timestamp: ts, key: flags & 1 != 0, data: data))
        case .shareAck:
            return .ack(ShareAck(sequence: try r.u32(), decoded: try r.u32(), dropped: try r.u32(), queuedBytes: try r.u32()))
        case .shareKeyRequest: return .keyRequest(sequence: try r.u32())
        case .shareAdvice:
            let b = try r.u32(), f = try r.u16(), why = try r.u8()
            _ = try r.u8()
            return .advice(ShareAdvice(bitrate: b, frameRate: f, reason: ShareAdvice.Reason(rawValue: why) ?? .network))
        case .shareControl:
            let a = try r.u8()
            guard let action = ShareAction(rawValue: a) else { throw WireError.invalid("share action \(a) is not 1 (pause), 2 (resume) or 3 (stop)") }
            return .control(action)
        case .shareModerate:
            let d = try r.u8(), a = try r.u8()
            guard let m = ShareModeration(rawValue: a) else {
                throw WireError.invalid("share moderation \(a) is not 1 (approve), 2 (approve beside) or 3 (end)")
            }
            return .moderate(device: d, m)
        case .shareEnded: return .ended(try Body.error(&r))
        case .sharePicture:
            let d = try r.u8()
            _ = try r.u8()
            return .picture(device: d, maxWidth: try r.u16(), maxHeight: try r.u16())
        case .shareAudio:
            let codec = try r.u8(), channels = try r.u8()
            _ = try r.u16()
            guard let c = ShareAudio.Codec(rawValue: codec) else { throw WireError.invalid("audio codec \(codec) is not 1 (Opus)") }
            guard (1...2).contains(channels) else { throw WireError.invalid("\(channels) audio channels: 1 or 2") }
            let seq = try r.u32(), ts = try r.u64()
            let data = r.rest()
            guard !data.isEmpty, data.count <= ShareAudio.maxBytes else {
                throw WireError.invalid("a share-audio carries 1 to \(ShareAudio.maxBytes) bytes of sound, not \(data.count)")
            }
            return .audio(ShareAudio(codec: c, channels: channels, sequence: seq, timestamp: ts, data: data))
        default: throw WireError.invalid("not a share command")
        }
    }
}

/// How the media frames are encoded.
public enum ShareCodec: UInt8, Sendable, Equatable, CaseIterable {
    /// H.264 in Annex B (start codes), one access unit per media frame; the SPS and PPS
    /// in front of every key frame.
    case h264 = 1
    /// VP8: one frame per media frame (WebCodecs' chunks as they are).
    case vp8 = 2
    /// VP9 (profile 0): one frame per media frame.
    case vp9 = 3

    public var name: String {
        switch self {
        case .h264: return "h264"
        case .vp8: return "vp8"
        case .vp9: return "vp9"
        }
    }
}

/// What is shared (the wall and the moderator show it).
public enum ShareSourceKind: UInt8, Sendable, Equatable {
    case screen = 1
    case camera = 2
    case file = 3

    public var name: String {
        switch self {
        case .screen: return "screen"
        case .camera: return "camera"
        case .file: return "file"
        }
    }
}

/// Where a share goes (§29.3).
public enum SharePlacement: UInt8, Sendable, Equatable {
    /// Where the sender drives: its pane, else the main pane (with the floor).
    case driven = 0
    /// Beside what the wall shows (as wall-add): a free pane, the layout growing.
    case beside = 1
}

/// share-begin's body.
public struct ShareConfig: Equatable, Sendable {
    public var codec: ShareCodec
    public var source: ShareSourceKind
    public var placement: SharePlacement
    /// The coded picture's size in pixels.
    public var width: UInt16
    public var height: UInt16
    /// Frames a second the sender sends at most.
    public var frameRate: UInt16
    /// Bits a second the sender aims at.
    public var bitrate: UInt32

    public init(
        codec: ShareCodec, source: ShareSourceKind = .screen, placement: SharePlacement = .driven, width: UInt16, height: UInt16,
        frameRate: UInt16, bitrate: UInt32
    ) {
        self.codec = codec; self.source = source; self.placement = placement
        self.width = width; self.height = height; self.frameRate = frameRate; self.bitrate = bitrate
    }

    /// The first limit the config is over (§29.2), as the error to answer; nil when within.
    public func check(_ l: ShareLimits = ShareLimits()) -> LecternError? {
        let w = Int(width), h = Int(height)
        if w < ShareLimits.minSide || h < ShareLimits.minSide || max(w, h) > l.maxSide || w * h > l.maxPixels {
            return .shareUnsupported(
                detail: UInt64(w * h),
                "A shared picture of \(w)×\(h) is outside the limits: each side \(ShareLimits.minSide)–\(l.maxSide) pixels and at most \(l.maxPixels == 1920 * 1200 ? "1920×1200" : "\(l.maxPixels) pixels") in all — share a smaller window or lower the resolution."
            )
        }
        if frameRate < 1 || Int(frameRate) > l.maxFrameRate {
            return .shareUnsupported(detail: UInt64(frameRate), "A share sends 1 to \(l.maxFrameRate) frames a second, not \(frameRate).")
        }
        if bitrate < ShareLimits.minBitrate || Int(bitrate) > l.maxBitrate {
            return .shareUnsupported(
                detail: UInt64(bitrate), "A share sends \(ShareLimits.minBitrate / 1000) kbit/s to \(l.maxBitrate / 1_000_000) Mbit/s, not \(bitrate / 1000) kbit/s.")
        }
        return nil
    }
}

/// share-ready's body.
public struct ShareReady: Equatable, Sendable {
    public enum Status: UInt8, Sendable, Equatable {
        /// On the wall (in `pane`).
        case live = 1
        /// Waiting for the moderator (a moderated room, no floor): send frames anyway, the
        /// moderator sees them small before approving.
        case waiting = 2
    }
    public var status: Status
    public var pane: Int?
    /// What to send at most (the asked values, or lower).
    public var frameRate: UInt16
    public var bitrate: UInt32
    public init(status: Status, pane: Int?, frameRate: UInt16, bitrate: UInt32) {
        self.status = status; self.pane = pane; self.frameRate = frameRate; self.bitrate = bitrate
    }
}

/// share-frame's body: one encoded picture.
/// share-audio's body (§29.9): one Opus packet of the share's sound, with its capture time
/// on the same clock as the share-frames' (so the appliance can keep the picture with it).
public struct ShareAudio: Equatable, Sendable {
    public enum Codec: UInt8, Sendable, Equatable { case opus = 1 }
    /// The largest packet (Opus allows 1275 bytes a frame, 120 ms at most a packet).
    public static let maxBytes = 8000
    public var codec: Codec
    public var channels: UInt8
    public var sequence: UInt32
    /// Capture time (µs) of its first sample, on the share-frames' clock.
    public var timestamp: UInt64
    public var data: [UInt8]
    public init(codec: Codec = .opus, channels: UInt8, sequence: UInt32, timestamp: UInt64, data: [UInt8]) {
        self.codec = codec; self.channels = channels; self.sequence = sequence; self.timestamp = timestamp; self.data = data
    }
}

public struct ShareFrame: Equatable, Sendable {
    /// Counts media frames sent in this share, +1 each (a new share-begin starts again anywhere).
    public var sequence: UInt32
    /// The sender's capture time in microseconds (its own clock: only differences count).
    public var timestamp: UInt64
    /// A key frame: decodable on its own (H.264: an IDR with its SPS and PPS).
    public var key: Bool
    public var data: [UInt8]
    public init(sequence: UInt32, timestamp: UInt64, key: Bool, data: [UInt8]) {
        self.sequence = sequence; self.timestamp = timestamp; self.key = key; self.data = data
    }
}

/// share-ack's body.
public struct ShareAck: Equatable, Sendable {
    /// The newest media frame handled (decoded, or dropped).
    public var sequence: UInt32
    /// Frames decoded and dropped in this share so far.
    public var decoded: UInt32
    public var dropped: UInt32
    /// Bytes received and waiting for the decoder now.
    public var queuedBytes: UInt32
    public init(sequence: UInt32, decoded: UInt32, dropped: UInt32, queuedBytes: UInt32) {
        self.sequence = sequence; self.decoded = decoded; self.dropped = dropped; self.queuedBytes = queuedBytes
    }
}

/// share-advice's body.
public struct ShareAdvice: Equatable, Sendable {
    public enum Reason: UInt8, Sendable, Equatable {
        /// Frames arrive later and later: the network carries less than is sent.
        case network = 1
        /// The decoder can't keep up with this frame rate.
        case decoder = 2
        /// Things are well again: up to the asked values.
        case recovered = 3
    }
    public var bitrate: UInt32
    public var frameRate: UInt16
    public var reason: Reason
    public init(bitrate: UInt32, frameRate: UInt16, reason: Reason) {
        self.bitrate = bitrate; self.frameRate = frameRate; self.reason = reason
    }
}

/// share-control's action.
public enum ShareAction: UInt8, Sendable, Equatable {
    case pause = 1, resume = 2, stop = 3
}

/// share-moderate's action.
public enum ShareModeration: UInt8, Sendable, Equatable {
    /// Approve into the main pane: the device gets the floor.
    case approve = 1
    /// Approve beside what the wall shows: a pane of its own (as wall-add).
    case approveBeside = 2
    /// Reject a waiting share, or end a live one.
    case end = 3
}

/// The limits of §29.2.
public struct ShareLimits: Equatable, Sendable {
    public static let minSide = 16
    public static let minBitrate: UInt32 = 100_000
    /// Each side of the picture, at most.
    public var maxSide = 1920
    /// Pixels in all, at most (1920×1200).
    public var maxPixels = 1920 * 1200
    public var maxFrameRate = 60
    /// Bits a second asked, at most.
    public var maxBitrate = 20_000_000
    /// Received bytes waiting for the decoder, at most; past it they are dropped (and a key
    /// frame asked for).
    public var maxQueuedBytes = 4 << 20
    /// Media frames waiting for the decoder, at most (the same).
    public var maxQueuedFrames = 8
    /// Longest one picture may take to decode before the share ends (`shareStalled`).
    public var stallSeconds = 2.0
    public init() {}

    /// The caps the config's `[share]` section sets.
    public init(_ s: ShareSettings) {
        maxSide = max(s.maxWidth, s.maxHeight)
        maxPixels = s.maxWidth * s.maxHeight
        maxFrameRate = s.maxFrameRate
        maxBitrate = s.maxBitrateKbps * 1000
        maxQueuedBytes = s.maxQueuedKB << 10
        stallSeconds = s.stallSeconds
    }
}

// MARK: errors (0x12xx)

extension LecternError {
    public static func shareUnsupported(detail: UInt64, _ message: String) -> LecternError {
        LecternError(.shareUnsupported, detail: detail, message: message)
    }
    public static let noShare = LecternError(standard: .noShare)
    public static func shareBusy(pane: Int, by name: String) -> LecternError {
        LecternError(.shareBusy, detail: UInt64(pane), message: "\(name) is sharing in that pane — one share per pane.")
    }
    public static func shareDamaged(_ why: String) -> LecternError {
        LecternError(.shareDamaged, message: "The shared stream can't be decoded (\(why)); the share has ended.")
    }
    public static func shareStalled(seconds: Double) -> LecternError {
        LecternError(
            .shareStalled, detail: UInt64(seconds * 1000),
            message: "Decoding the shared stream took longer than \(formatSeconds(seconds)); the share has ended.")
    }
    public static let shareWithdrawn = LecternError(standard: .shareWithdrawn)
    public static let shareReplaced = LecternError(standard: .shareReplaced)
    public static let shareNoPicture = LecternError(standard: .shareNoPicture)
    public static let shareNotWaiting = LecternError(standard: .shareNotWaiting)
}
