import LecternCore

/// Key-derivation parameters for one role, as announced in hello.
public struct KDFParameters: Equatable, Sendable {
    public var rounds: UInt32
    public var salt: [UInt8]
    public init(rounds: UInt32, salt: [UInt8]) {
        self.rounds = rounds
        self.salt = salt
    }
}

/// hello (0x10), the server's first message on every connection.
public struct Hello: Equatable, Sendable {
    public var version: UInt16
    /// 32 fresh random bytes, different on every connection.
    public var challenge: [UInt8]
    /// Largest frame (header included) the server accepts.
    public var maxFrameLength: UInt32
    public var pingIntervalMs: UInt32
    public var timeoutMs: UInt32
    /// nil: the room takes no presenters (never in practice).
    public var presenter: KDFParameters?
    /// nil: no moderator passcode is configured.
    public var moderator: KDFParameters?
    public var room: String
    /// Free text naming the server software, e.g. "lecternd 0.1".
    public var server: String

    public init(
        version: UInt16 = lecternProtocolVersion, challenge: [UInt8],
        maxFrameLength: UInt32 = ProtocolLimits.maxFrameLength,
        pingIntervalMs: UInt32 = UInt32(ProtocolLimits.pingIntervalSeconds * 1000),
        timeoutMs: UInt32 = UInt32(ProtocolLimits.peerTimeoutSeconds * 1000),
        presenter: KDFParameters?, moderator: KDFParameters?, room: String, server: String
    ) {
        self.version = version
        self.challenge = challenge
        self.maxFrameLength = maxFrameLength
        self.pingIntervalMs = pingIntervalMs
        self.timeoutMs = timeoutMs
        self.presenter = presenter
        self.moderator = moderator
        self.room = room
        self.server = server
    }

    public func parameters(for role: Role) -> KDFParameters? { role == .presenter ? presenter : moderator }

    /// 32 fresh random bytes for a new connection's hello; keep them to verify its register.
    public static func freshChallenge() -> [UInt8] { randomBytes(ProtocolLimits.challengeLength) }
}

/// register (0x01).
public struct RegisterRequest: Equatable, Sendable {
    public var version: UInt16
    public var role: Role
    /// HMAC-SHA256 proof, 32 bytes (see `RegisterProof`).
    public var proof: [UInt8]
    public var resumeToken: ResumeToken?
    public var name: String

    public init(version: UInt16 = lecternProtocolVersion, role: Role, proof: [UInt8], resumeToken: ResumeToken?, name: String) {
        self.version = version
        self.role = role
        self.proof = proof
        self.resumeToken = resumeToken
        self.name = name
    }
}

/// register-ok (0x02).
public struct RegisterOK: Equatable, Sendable {
    public var deviceID: DeviceID
    public var role: Role
    /// The earlier id came back (the resume token was valid).
    public var resumed: Bool
    /// The floor came back too.
    public var floorRestored: Bool
    public var resumeToken: ResumeToken

    public init(deviceID: DeviceID, role: Role, resumed: Bool, floorRestored: Bool, resumeToken: ResumeToken) {
        self.deviceID = deviceID
        self.role = role
        self.resumed = resumed
        self.floorRestored = floorRestored
        self.resumeToken = resumeToken
    }
}

/// floor-ack (0x07): the answer to floor-request.
public enum FloorAck: Equatable, Sendable {
    /// You have the floor now.
    case holder
    /// You are in the queue at this 1-based position.
    case queued(position: UInt16)
}

/// upload-begin (0x38).
public struct UploadBegin: Equatable, Sendable {
    /// SHA-256 of the whole file; becomes its content id.
    public var content: ContentID
    public var size: UInt64
    /// nil: let the server detect the kind.
    public var kind: ContentKind?
    /// Possession proof (see `PossessionProof`), or nil (sent as 32 zero bytes).
    public var proof: [UInt8]?
    public var name: String

    public init(content: ContentID, size: UInt64, kind: ContentKind?, proof: [UInt8]?, name: String) {
        self.content = content
        self.size = size
        self.kind = kind
        self.proof = proof
        self.name = name
    }
}

/// upload-ready (0x39): the answer to upload-begin.
public struct UploadReady: Equatable, Sendable {
    public enum Status: UInt8, Sendable {
        /// The store has this file and it is yours now: don't send it. Info fields are set.
        case stored = 1
        /// Send the file from `offset` on.
        case sendFrom = 2
    }
    public var content: ContentID
    public var status: Status
    /// `.sendFrom`: first byte to send. `.stored`: the file size.
    public var offset: UInt64
    public var kind: ContentKind?
    public var pageCount: UInt32
    public var durationMs: UInt32

    public init(content: ContentID, status: Status, offset: UInt64, kind: ContentKind? = nil, pageCount: UInt32 = 0, durationMs: UInt32 = 0) {
        self.content = content
        self.status = status
        self.offset = offset
        self.kind = kind
        self.pageCount = pageCount
        self.durationMs = durationMs
    }
}

/// upload-chunk (0x3A).
public struct UploadChunk: Equatable, Sendable {
    public var content: ContentID
    public var offset: UInt64
    public var data: [UInt8]
    public init(content: ContentID, offset: UInt64, data: [UInt8]) {
        self.content = content
        self.offset = offset
        self.data = data
    }
}

/// upload-stored (0x3C): the answer to upload-finish.
public struct UploadStored: Equatable, Sendable {
    public var content: ContentID
    public var kind: ContentKind
    public var size: UInt64
    public var pageCount: UInt32
    public var durationMs: UInt32
    public init(content: ContentID, kind: ContentKind, size: UInt64, pageCount: UInt32, durationMs: UInt32) {
        self.content = content
        self.kind = kind
        self.size = size
        self.pageCount = pageCount
        self.durationMs = durationMs
    }
}

/// screenshot-data (0x51): one piece of the PNG.
public struct ScreenshotChunk: Equatable, Sendable {
    public var width: UInt32
    public var height: UInt32
    public var totalSize: UInt32
    public var offset: UInt32
    public var data: [UInt8]
    public init(width: UInt32, height: UInt32, totalSize: UInt32, offset: UInt32, data: [UInt8]) {
        self.width = width
        self.height = height
        self.totalSize = totalSize
        self.offset = offset
        self.data = data
    }
    public var isLast: Bool { UInt64(offset) + UInt64(data.count) >= UInt64(totalSize) }

    /// Splits a PNG into screenshot-data chunks of at most `chunkSize` bytes (at least one).
    public static func split(png: [UInt8], width: UInt32, height: UInt32, chunkSize: Int = ProtocolLimits.maxChunkLength) -> [ScreenshotChunk] {
        let size = max(1, min(chunkSize, ProtocolLimits.maxChunkLength))
        if png.isEmpty { return [ScreenshotChunk(width: width, height: height, totalSize: 0, offset: 0, data: [])] }
        return stride(from: 0, to: png.count, by: size).map { o in
            ScreenshotChunk(
                width: width, height: height, totalSize: UInt32(clamping: png.count), offset: UInt32(clamping: o),
                data: Array(png[o..<min(o + size, png.count)]))
        }
    }
}

/// page-preview (0x52): a page of an upload as the output would show it, small.
public struct PagePreviewRequest: Equatable, Sendable {
    public var content: ContentID
    /// 1-based; 0 means 1.
    public var page: UInt32
    /// The largest image the client wants; 0 = no limit on that side (the output's size).
    public var maxWidth: UInt16
    public var maxHeight: UInt16
    public init(content: ContentID, page: UInt32, maxWidth: UInt16, maxHeight: UInt16 = 0) {
        self.content = content
        self.page = page
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
    }
}

/// Every message of protocol version 1, both directions.
public enum Message: Equatable, Sendable {
    // session
    case hello(Hello)
    case ping(nonce: UInt32)
    case pong(nonce: UInt32)
    case ok
    case error(LecternError)
    case state(Snapshot)
    case stateRequest
    // registration
    case register(RegisterRequest)
    case registerOK(RegisterOK)
    case registerFailed(LecternError)
    case unregister
    case unregisterOK
    // floor
    case floorRequest
    case floorAck(FloorAck)
    case floorGranted(reason: FloorGrantReason, by: DeviceID)
    case floorWithdrawn(reason: FloorLossReason, by: DeviceID)
    case floorRelease
    case floorModerate(action: FloorAction, target: DeviceID)
    // control signals
    case control(ControlSignal)
    case controlOK
    case controlFailed(LecternError)
    // clips
    case clipPlay(content: ContentID, loop: Bool)
    case clipPlayOK
    case clipPause
    case clipPauseOK
    case clipStop
    case clipStopOK
    case clipSeek(positionMs: UInt32)
    case clipSeekOK
    case clipResume
    case clipResumeOK
    // content on screen
    case present(content: ContentID, page: UInt32)
    case presentOK
    case clear
    // uploads
    case uploadBegin(UploadBegin)
    case uploadReady(UploadReady)
    case uploadChunk(UploadChunk)
    case uploadFinish(content: ContentID)
    case uploadStored(UploadStored)
    case uploadProgress(content: ContentID, stored: UInt64)
    // screenshot
    /// The output's frame, at most `maxWidth`×`maxHeight` (0, 0: the output's size, exactly).
    case screenshotRequest(maxWidth: UInt16 = 0, maxHeight: UInt16 = 0)
    case screenshotData(ScreenshotChunk)
    // page preview (answered with screenshot-data)
    case pagePreview(PagePreviewRequest)

    public var command: Command {
        switch self {
        case .hello: .hello
        case .ping: .ping
        case .pong: .pong
        case .ok: .ok
        case .error: .error
        case .state: .state
        case .stateRequest: .stateRequest
        case .register: .register
        case .registerOK: .registerOK
        case .registerFailed: .registerFailed
        case .unregister: .unregister
        case .unregisterOK: .unregisterOK
        case .floorRequest: .floorRequest
        case .floorAck: .floorAck
        case .floorGranted: .floorGranted
        case .floorWithdrawn: .floorWithdrawn
        case .floorRelease: .floorRelease
        case .floorModerate: .floorModerate
        case .control: .control
        case .controlOK: .controlOK
        case .controlFailed: .controlFailed
        case .clipPlay: .clipPlay
        case .clipPlayOK: .clipPlayOK
        case .clipPause: .clipPause
        case .clipPauseOK: .clipPauseOK
        case .clipStop: .clipStop
        case .clipStopOK: .clipStopOK
        case .clipSeek: .clipSeek
        case .clipSeekOK: .clipSeekOK
        case .clipResume: .clipResume
        case .clipResumeOK: .clipResumeOK
        case .present: .present
        case .presentOK: .presentOK
        case .clear: .clear
        case .uploadBegin: .uploadBegin
        case .uploadReady: .uploadReady
        case .uploadChunk: .uploadChunk
        case .uploadFinish: .uploadFinish
        case .uploadStored: .uploadStored
        case .uploadProgress: .uploadProgress
        case .screenshotRequest: .screenshotRequest
        case .screenshotData: .screenshotData
        case .pagePreview: .pagePreview
        }
    }

    /// The error a failure of this request travels in, if the message is an error.
    public var error: LecternError? {
        switch self {
        case .error(let e), .registerFailed(let e), .controlFailed(let e): e
        default: nil
        }
    }

    /// The message that carries `error` as the reply to a request with command byte
    /// `request`: register-failed for register, control-failed for control, error otherwise.
    public static func failure(replyingTo request: UInt8, _ error: LecternError) -> Message {
        switch request {
        case Command.register.rawValue: .registerFailed(error)
        case Command.control.rawValue: .controlFailed(error)
        default: .error(error)
        }
    }

    /// The success reply the server sends when a request needs nothing but "done".
    public static func success(replyingTo request: Command) -> Message? {
        switch request {
        case .unregister: .unregisterOK
        case .control: .controlOK
        case .clipPlay: .clipPlayOK
        case .clipPause: .clipPauseOK
        case .clipStop: .clipStopOK
        case .clipSeek: .clipSeekOK
        case .clipResume: .clipResumeOK
        case .present: .presentOK
        case .floorRelease, .floorModerate, .clear: .ok
        default: nil
        }
    }

    // MARK: encoding

    /// The whole frame: header (with this command, `deviceID` and `tag`) and body.
    public func encode(tag: UInt16, deviceID: UInt8) -> [UInt8] {
        let body = encodeBody()
        var w = ByteWriter(capacity: FrameHeader.size + body.count)
        FrameHeader(
            command: command.rawValue, deviceID: deviceID, tag: tag,
            length: UInt32(truncatingIfNeeded: FrameHeader.size + body.count)
        ).encode(into: &w)
        w.bytes(body)
        return w.bytes
    }

    /// The body alone. Each body's layout is in `Body` below, its encoder beside its decoder.
    public func encodeBody() -> [UInt8] {
        var w = ByteWriter()
        switch self {
        case .hello(let h): Body.hello(h, &w)
        case .ping(let n), .pong(let n): Body.nonce(n, &w)
        case .error(let e), .registerFailed(let e), .controlFailed(let e): Body.error(e, &w)
        case .state(let s): Body.state(s, &w)
        case .register(let r): Body.register(r, &w)
        case .registerOK(let r): Body.registerOK(r, &w)
        case .floorAck(let a): Body.floorAck(a, &w)
        case .floorGranted(let reason, let by): Body.floorGranted(reason, by, &w)
        case .floorWithdrawn(let reason, let by): Body.floorWithdrawn(reason, by, &w)
        case .floorModerate(let action, let target): Body.floorModerate(action, target, &w)
        case .control(let s): Body.control(s, &w)
        case .clipPlay(let c, let loop): Body.clipPlay(c, loop, &w)
        case .clipSeek(let ms): Body.clipSeek(ms, &w)
        case .present(let c, let page): Body.present(c, page, &w)
        case .uploadBegin(let b): Body.uploadBegin(b, &w)
        case .uploadReady(let r): Body.uploadReady(r, &w)
        case .uploadChunk(let c): Body.uploadChunk(c, &w)
        case .uploadFinish(let c): Body.uploadFinish(c, &w)
        case .uploadStored(let s): Body.uploadStored(s, &w)
        case .uploadProgress(let c, let stored): Body.uploadProgress(c, stored, &w)
        case .screenshotRequest(let mw, let mh): Body.screenshotRequest(mw, mh, &w)
        case .screenshotData(let s): Body.screenshotData(s, &w)
        case .pagePreview(let p): Body.pagePreview(p, &w)
        case .ok, .stateRequest, .unregister, .unregisterOK, .floorRequest, .floorRelease, .controlOK,
            .clipPlayOK, .clipPause, .clipPauseOK, .clipStop, .clipStopOK, .clipSeekOK, .clipResume, .clipResumeOK,
            .presentOK, .clear:
            break   // no body
        }
        return w.bytes
    }
    // MARK: decoding

    /// Decodes a frame. Throws a `LecternError`:
    /// - `unknownCommand` (connection stays open) for a command byte this version does not
    ///   define, or one that `sentBy` may not send;
    /// - `malformedBody` (closes the connection) for a body that is truncated, too long, or
    ///   carries an invalid value.
    public static func decode(header: FrameHeader, body: [UInt8], sentBy: Sender? = nil) throws(LecternError) -> Message {
        guard let command = Command(rawValue: header.command) else { throw .unknownCommand(header.command) }
        if let sentBy, sentBy != .either, command.sender != .either, command.sender != sentBy {
            throw .unknownCommand(header.command)
        }
        do {
            return try decodeBody(command, body)
        } catch let e as WireError {
            let reason: String
            switch e {
            case .truncated: reason = "the body is shorter than its fields"
            case .trailingBytes(let n): reason = "\(n) unexpected bytes after the last field"
            case .invalid(let why): reason = why
            }
            throw .malformedBody(command: header.command, reason: reason)
        } catch let e as LecternError {
            throw e
        } catch {
            throw .malformedBody(command: header.command, reason: "\(error)")
        }
    }

    public static func decode(_ frame: WireFrame, sentBy: Sender? = nil) throws(LecternError) -> Message {
        try decode(header: frame.header, body: frame.body, sentBy: sentBy)
    }

    private static func decodeBody(_ command: Command, _ body: [UInt8]) throws -> Message {
        var r = ByteReader(body)
        let m: Message
        switch command {
        case .hello: m = .hello(try Body.hello(&r))
        case .ping: m = .ping(nonce: try Body.nonce(&r))
        case .pong: m = .pong(nonce: try Body.nonce(&r))
        case .error: m = .error(try Body.error(&r))
        case .registerFailed: m = .registerFailed(try Body.error(&r))
        case .controlFailed: m = .controlFailed(try Body.error(&r))
        case .state: m = .state(try Body.state(&r))
        case .register: m = .register(try Body.register(&r))
        case .registerOK: m = .registerOK(try Body.registerOK(&r))
        case .floorAck: m = .floorAck(try Body.floorAck(&r))
        case .floorGranted: m = try Body.floorGranted(&r)
        case .floorWithdrawn: m = try Body.floorWithdrawn(&r)
        case .floorModerate: m = try Body.floorModerate(&r)
        case .control: m = .control(try Body.control(&r))
        case .clipPlay: m = try Body.clipPlay(&r)
        case .clipSeek: m = .clipSeek(positionMs: try Body.clipSeek(&r))
        case .present: m = try Body.present(&r)
        case .uploadBegin: m = .uploadBegin(try Body.uploadBegin(&r))
        case .uploadReady: m = .uploadReady(try Body.uploadReady(&r))
        case .uploadChunk: m = .uploadChunk(try Body.uploadChunk(&r))
        case .uploadFinish: m = .uploadFinish(content: try Body.uploadFinish(&r))
        case .uploadStored: m = .uploadStored(try Body.uploadStored(&r))
        case .uploadProgress: m = try Body.uploadProgress(&r)
        case .screenshotRequest: m = try Body.screenshotRequest(&r)
        case .screenshotData: m = .screenshotData(try Body.screenshotData(&r))
        case .pagePreview: m = .pagePreview(try Body.pagePreview(&r))
        case .ok: m = .ok
        case .stateRequest: m = .stateRequest
        case .unregister: m = .unregister
        case .unregisterOK: m = .unregisterOK
        case .floorRequest: m = .floorRequest
        case .floorRelease: m = .floorRelease
        case .controlOK: m = .controlOK
        case .clipPlayOK: m = .clipPlayOK
        case .clipPause: m = .clipPause
        case .clipPauseOK: m = .clipPauseOK
        case .clipStop: m = .clipStop
        case .clipStopOK: m = .clipStopOK
        case .clipSeekOK: m = .clipSeekOK
        case .clipResume: m = .clipResume
        case .clipResumeOK: m = .clipResumeOK
        case .presentOK: m = .presentOK
        case .clear: m = .clear
        }
        try r.expectEnd()
        return m
    }
}

/// Every body of protocol version 1 (docs/protocol.md §6), in the command table's order:
/// for each, the encoder (`Body.x(value, &writer)`) beside the decoder (`Body.x(&reader)`).
/// Decoders throw `WireError` for a short body or an invalid value (a `LecternError` only
/// where the protocol answers with one: an unknown control signal); `Message.decode`
/// checks that nothing is left over.
private enum Body {
    // register (0x01)
    static func register(_ r: RegisterRequest, _ w: inout ByteWriter) {
        w.u16(r.version)
        w.u8(r.role.rawValue)
        w.bytes(r.proof)
        if let t = r.resumeToken { w.u8(UInt8(t.bytes.count)); w.bytes(t.bytes) } else { w.u8(0) }
        w.string16(r.name)
    }
    static func register(_ r: inout ByteReader) throws -> RegisterRequest {
        let version = try r.u16()
        let roleByte = try r.u8()
        guard let role = Role(rawValue: roleByte) else { throw WireError.invalid("role \(roleByte) is not 1 (presenter) or 2 (moderator)") }
        let proof = try r.bytes(32)
        let tokenLength = try r.u8()
        var token: ResumeToken? = nil
        if tokenLength != 0 {
            guard let t = ResumeToken(bytes: try r.bytes(Int(tokenLength))) else { throw WireError.invalid("a resume token is 0 or 16 bytes") }
            token = t
        }
        let name = try r.string16(max: 1024, field: "device name")
        return RegisterRequest(version: version, role: role, proof: proof, resumeToken: token, name: name)
    }

    // register-ok (0x02)
    static func registerOK(_ r: RegisterOK, _ w: inout ByteWriter) {
        w.u8(r.deviceID)
        w.u8(r.role.rawValue)
        w.u8((r.resumed ? 1 : 0) | (r.floorRestored ? 2 : 0))
        w.bytes(r.resumeToken.bytes)
    }
    static func registerOK(_ r: inout ByteReader) throws -> RegisterOK {
        let id = try r.u8()
        let roleByte = try r.u8()
        guard let role = Role(rawValue: roleByte) else { throw WireError.invalid("role \(roleByte) is not 1 or 2") }
        let flags = try r.u8()
        guard let token = ResumeToken(bytes: try r.bytes(16)) else { throw WireError.truncated }
        return RegisterOK(deviceID: id, role: role, resumed: flags & 1 != 0, floorRestored: flags & 2 != 0, resumeToken: token)
    }

    // register-failed (0x03), control-failed (0x0E), error (0x14)
    static func error(_ e: LecternError, _ w: inout ByteWriter) {
        w.u16(e.code.rawValue)
        w.u8(e.closesConnection ? 1 : 0)
        w.u8(0)
        w.u64(e.detail)
        w.string16(clip(e.message, ProtocolLimits.maxErrorMessageBytes))
    }
    static func error(_ r: inout ByteReader) throws -> LecternError {
        let code = ErrorCode(rawValue: try r.u16())
        let flags = try r.u8()
        _ = try r.u8()
        let detail = try r.u64()
        let msg = try r.string16(max: ProtocolLimits.maxErrorMessageBytes, field: "error message")
        return LecternError(code, detail: detail, message: msg, closesConnection: flags & 1 != 0)
    }

    // floor-ack (0x07)
    static func floorAck(_ a: FloorAck, _ w: inout ByteWriter) {
        switch a {
        case .holder: w.u8(1); w.u16(0)
        case .queued(let p): w.u8(2); w.u16(p)
        }
    }
    static func floorAck(_ r: inout ByteReader) throws -> FloorAck {
        let outcome = try r.u8()
        let position = try r.u16()
        switch outcome {
        case 1: return .holder
        case 2: return .queued(position: position)
        default: throw WireError.invalid("floor-ack outcome \(outcome) is not 1 or 2")
        }
    }

    // floor-granted (0x08)
    static func floorGranted(_ reason: FloorGrantReason, _ by: DeviceID, _ w: inout ByteWriter) {
        w.u8(reason.rawValue); w.u8(by)
    }
    static func floorGranted(_ r: inout ByteReader) throws -> Message {
        let b = try r.u8()
        guard let reason = FloorGrantReason(rawValue: b) else { throw WireError.invalid("grant reason \(b) is unknown") }
        return .floorGranted(reason: reason, by: try r.u8())
    }

    // floor-withdrawn (0x09)
    static func floorWithdrawn(_ reason: FloorLossReason, _ by: DeviceID, _ w: inout ByteWriter) {
        w.u8(reason.rawValue); w.u8(by)
    }
    static func floorWithdrawn(_ r: inout ByteReader) throws -> Message {
        let b = try r.u8()
        guard let reason = FloorLossReason(rawValue: b) else { throw WireError.invalid("withdraw reason \(b) is unknown") }
        return .floorWithdrawn(reason: reason, by: try r.u8())
    }

    // floor-moderate (0x0B)
    static func floorModerate(_ action: FloorAction, _ target: DeviceID, _ w: inout ByteWriter) {
        w.u8(action.rawValue); w.u8(target)
    }
    static func floorModerate(_ r: inout ByteReader) throws -> Message {
        let b = try r.u8()
        guard let action = FloorAction(rawValue: b) else { throw WireError.invalid("floor action \(b) is not 1–6") }
        return .floorModerate(action: action, target: try r.u8())
    }

    // control (0x0C)
    static func control(_ s: ControlSignal, _ w: inout ByteWriter) {
        w.u8(s.signalByte); w.u8(0); w.u8(0); w.u8(0); w.u32(s.parameter)
    }
    static func control(_ r: inout ByteReader) throws -> ControlSignal {
        let signal = try r.u8()
        _ = try r.bytes(3)
        let parameter = try r.u32()
        try r.expectEnd()
        // An unknown signal is not a malformed body: it is answered with control-failed.
        return try ControlSignal.parse(signal: signal, parameter: parameter)
    }

    // hello (0x10)
    static func hello(_ h: Hello, _ w: inout ByteWriter) {
        w.u16(h.version)
        w.bytes(h.challenge)
        w.u32(h.maxFrameLength)
        w.u32(h.pingIntervalMs)
        w.u32(h.timeoutMs)
        for p in [h.presenter, h.moderator] {
            w.u32(p?.rounds ?? 0)
            let salt = Array((p?.salt ?? []).prefix(255))
            w.u8(UInt8(salt.count)); w.bytes(salt)
        }
        w.string16(clip(h.room, ProtocolLimits.maxRoomNameBytes))
        w.string16(clip(h.server, 255))
    }
    static func hello(_ r: inout ByteReader) throws -> Hello {
        let version = try r.u16()
        let challenge = try r.bytes(32)
        let maxFrame = try r.u32()
        let ping = try r.u32()
        let timeout = try r.u32()
        var params: [KDFParameters?] = []
        for _ in 0..<2 {
            let rounds = try r.u32()
            let salt = try r.bytes(Int(try r.u8()))
            params.append(rounds == 0 ? nil : KDFParameters(rounds: rounds, salt: salt))
        }
        let room = try r.string16(max: ProtocolLimits.maxRoomNameBytes, field: "room name")
        let server = try r.string16(max: 255, field: "server")
        return Hello(
            version: version, challenge: challenge, maxFrameLength: maxFrame, pingIntervalMs: ping,
            timeoutMs: timeout, presenter: params[0], moderator: params[1], room: room, server: server)
    }

    // ping (0x11), pong (0x12)
    static func nonce(_ n: UInt32, _ w: inout ByteWriter) { w.u32(n) }
    static func nonce(_ r: inout ByteReader) throws -> UInt32 { try r.u32() }

    // state (0x15): the snapshot's JSON, the whole body
    static func state(_ s: Snapshot, _ w: inout ByteWriter) { w.bytes(s.jsonBytes()) }
    static func state(_ r: inout ByteReader) throws -> Snapshot {
        let json = r.rest()
        guard !json.isEmpty else { throw WireError.truncated }
        do {
            return try Snapshot.fromJSON(json)
        } catch {
            throw WireError.invalid("the state JSON does not match the schema")
        }
    }

    // clip-play (0x20)
    static func clipPlay(_ c: ContentID, _ loop: Bool, _ w: inout ByteWriter) {
        w.bytes(c.bytes); w.u8(loop ? 1 : 0)
    }
    static func clipPlay(_ r: inout ByteReader) throws -> Message {
        let c = try contentID(&r)
        return .clipPlay(content: c, loop: try r.u8() & 1 != 0)
    }

    // clip-seek (0x26)
    static func clipSeek(_ ms: UInt32, _ w: inout ByteWriter) { w.u32(ms) }
    static func clipSeek(_ r: inout ByteReader) throws -> UInt32 { try r.u32() }

    // present (0x30)
    static func present(_ c: ContentID, _ page: UInt32, _ w: inout ByteWriter) {
        w.bytes(c.bytes); w.u32(page)
    }
    static func present(_ r: inout ByteReader) throws -> Message {
        let c = try contentID(&r)
        return .present(content: c, page: try r.u32())
    }

    // upload-begin (0x38)
    static func uploadBegin(_ b: UploadBegin, _ w: inout ByteWriter) {
        w.bytes(b.content.bytes)
        w.u64(b.size)
        w.u8(b.kind?.rawValue ?? 0)
        w.bytes(b.proof ?? [UInt8](repeating: 0, count: 32))
        w.string16(b.name)
    }
    static func uploadBegin(_ r: inout ByteReader) throws -> UploadBegin {
        let c = try contentID(&r)
        let size = try r.u64()
        let k = try kind(try r.u8(), allowZero: true)
        let proof = try r.bytes(32)
        let name = try r.string16(max: 1024, field: "file name")
        return UploadBegin(content: c, size: size, kind: k, proof: proof.allSatisfy { $0 == 0 } ? nil : proof, name: name)
    }

    // upload-ready (0x39)
    static func uploadReady(_ u: UploadReady, _ w: inout ByteWriter) {
        w.bytes(u.content.bytes)
        w.u8(u.status.rawValue)
        w.u64(u.offset)
        w.u8(u.kind?.rawValue ?? 0)
        w.u32(u.pageCount)
        w.u32(u.durationMs)
    }
    static func uploadReady(_ r: inout ByteReader) throws -> UploadReady {
        let c = try contentID(&r)
        let s = try r.u8()
        guard let status = UploadReady.Status(rawValue: s) else { throw WireError.invalid("upload status \(s) is not 1 or 2") }
        let offset = try r.u64()
        let k = try kind(try r.u8(), allowZero: true)
        return UploadReady(content: c, status: status, offset: offset, kind: k, pageCount: try r.u32(), durationMs: try r.u32())
    }

    // upload-chunk (0x3A)
    static func uploadChunk(_ c: UploadChunk, _ w: inout ByteWriter) {
        w.bytes(c.content.bytes); w.u64(c.offset); w.bytes(c.data)
    }
    static func uploadChunk(_ r: inout ByteReader) throws -> UploadChunk {
        let c = try contentID(&r)
        let offset = try r.u64()
        let data = r.rest()
        guard data.count <= ProtocolLimits.maxChunkLength else { throw WireError.invalid("a chunk carries at most \(ProtocolLimits.maxChunkLength) bytes") }
        return UploadChunk(content: c, offset: offset, data: data)
    }

    // upload-finish (0x3B)
    static func uploadFinish(_ c: ContentID, _ w: inout ByteWriter) { w.bytes(c.bytes) }
    static func uploadFinish(_ r: inout ByteReader) throws -> ContentID { try contentID(&r) }

    // upload-stored (0x3C)
    static func uploadStored(_ s: UploadStored, _ w: inout ByteWriter) {
        w.bytes(s.content.bytes)
        w.u8(s.kind.rawValue)
        w.u64(s.size)
        w.u32(s.pageCount)
        w.u32(s.durationMs)
    }
    static func uploadStored(_ r: inout ByteReader) throws -> UploadStored {
        let c = try contentID(&r)
        guard let k = try kind(try r.u8(), allowZero: false) else { throw WireError.truncated }
        return UploadStored(content: c, kind: k, size: try r.u64(), pageCount: try r.u32(), durationMs: try r.u32())
    }

    // upload-progress (0x3D)
    static func uploadProgress(_ c: ContentID, _ stored: UInt64, _ w: inout ByteWriter) {
        w.bytes(c.bytes); w.u64(stored)
    }
    static func uploadProgress(_ r: inout ByteReader) throws -> Message {
        let c = try contentID(&r)
        return .uploadProgress(content: c, stored: try r.u64())
    }

    // screenshot-request (0x50): empty for the full frame (as in the first version)
    static func screenshotRequest(_ maxWidth: UInt16, _ maxHeight: UInt16, _ w: inout ByteWriter) {
        if maxWidth != 0 || maxHeight != 0 { w.u16(maxWidth); w.u16(maxHeight) }
    }
    static func screenshotRequest(_ r: inout ByteReader) throws -> Message {
        if r.isAtEnd { return .screenshotRequest() }
        let mw = try r.u16()
        return .screenshotRequest(maxWidth: mw, maxHeight: try r.u16())
    }

    // screenshot-data (0x51)
    static func screenshotData(_ s: ScreenshotChunk, _ w: inout ByteWriter) {
        w.u32(s.width); w.u32(s.height); w.u32(s.totalSize); w.u32(s.offset); w.bytes(s.data)
    }
    static func screenshotData(_ r: inout ByteReader) throws -> ScreenshotChunk {
        let w = try r.u32(), h = try r.u32(), total = try r.u32(), offset = try r.u32()
        let data = r.rest()
        guard data.count <= ProtocolLimits.maxChunkLength else { throw WireError.invalid("a chunk carries at most \(ProtocolLimits.maxChunkLength) bytes") }
        guard UInt64(offset) + UInt64(data.count) <= UInt64(total) else { throw WireError.invalid("the chunk ends past the total size") }
        return ScreenshotChunk(width: w, height: h, totalSize: total, offset: offset, data: data)
    }

    // page-preview (0x52)
    static func pagePreview(_ p: PagePreviewRequest, _ w: inout ByteWriter) {
        w.bytes(p.content.bytes); w.u32(p.page); w.u16(p.maxWidth); w.u16(p.maxHeight)
    }
    static func pagePreview(_ r: inout ByteReader) throws -> PagePreviewRequest {
        let c = try contentID(&r)
        let page = try r.u32()
        return PagePreviewRequest(content: c, page: page, maxWidth: try r.u16(), maxHeight: try r.u16())
    }

    // fields more than one body has

    static func contentID(_ r: inout ByteReader) throws(WireError) -> ContentID {
        guard let id = ContentID(bytes: try r.bytes(32)) else { throw .truncated }
        return id
    }

    static func kind(_ b: UInt8, allowZero: Bool) throws(WireError) -> ContentKind? {
        if b == 0 && allowZero { return nil }
        guard let k = ContentKind(rawValue: b) else { throw .invalid("kind \(b) is not 1 (pdf) or 2 (clip)") }
        return k
    }
}

/// Shortens a string to at most `max` UTF-8 bytes without cutting a character.
func clip(_ s: String, _ max: Int) -> String {
    if s.utf8.count <= max { return s }
    var out = ""
    var n = 0
    for ch in s {
        let k = ch.utf8.count
        if n + k > max { break }
        out.append(ch); n += k
    }
    return out
}
