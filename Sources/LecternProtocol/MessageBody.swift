import Foundation
import LecternModel

/// Every body of protocol version 1 (docs/protocol.md §6), in the command table's order:
/// for each, the encoder (`Body.x(value, &writer)`) beside the decoder (`Body.x(&reader)`).
/// Decoders throw `WireError` for a short body or an invalid value (a `LecternError` only
/// where the protocol answers with one: an unknown control signal); `Message.decode`
/// checks that nothing is left over.
enum Body {
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
        guard let role = Role(rawValue: roleByte) else { throw WireError.invalid("role \(roleByte) is not 1 (presenter), 2 (moderator) or 3 (viewer)") }
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
        guard let role = Role(rawValue: roleByte) else { throw WireError.invalid("role \(roleByte) is not 1, 2 or 3") }
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
        default: throw WireError.invalid("floor-ack outcome \(outcome) is not 1, 2 or 3")
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

    // A u8 that is 0 or 1 (clip-loop).
    static func flag(_ r: inout ByteReader, _ what: String) throws -> Bool {
        let v = try r.u8()
        guard v <= 1 else { throw WireError.invalid("\(what) takes 0 or 1, not \(v)") }
        return v == 1
    }

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
        guard let status = UploadReady.Status(rawValue: s) else { throw WireError.invalid("upload status \(s) is not 1, 2 or 3") }
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
    // 5 bytes when a JPEG is welcome: the flags byte after the size (bit 0: JPEG).
    static func screenshotRequest(_ maxWidth: UInt16, _ maxHeight: UInt16, _ jpeg: Bool, _ w: inout ByteWriter) {
        if maxWidth != 0 || maxHeight != 0 || jpeg { w.u16(maxWidth); w.u16(maxHeight) }
        if jpeg { w.u8(1) }
    }
    static func screenshotRequest(_ r: inout ByteReader) throws -> Message {
        if r.isAtEnd { return .screenshotRequest() }
        let mw = try r.u16()
        let mh = try r.u16()
        if r.isAtEnd { return .screenshotRequest(maxWidth: mw, maxHeight: mh) }
        let flags = try r.u8()
        guard flags == 1 else { throw WireError.invalid("screenshot flags \(flags): only bit 0 (JPEG) is defined, and a flags byte of 0 is left out") }
        return .screenshotRequest(maxWidth: mw, maxHeight: mh, jpeg: flags & 1 != 0)
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
        if p.notesHalf { w.u8(1) }
    }
    static func pagePreview(_ r: inout ByteReader) throws -> PagePreviewRequest {
        let c = try contentID(&r)
        let page = try r.u32()
        var p = PagePreviewRequest(content: c, page: page, maxWidth: try r.u16(), maxHeight: try r.u16())
        if !r.isAtEnd {
            let part = try r.u8()
            guard part <= 1 else { throw WireError.invalid("page part \(part) is not 0 or 1") }
            p.notesHalf = part == 1
        }
        return p
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
