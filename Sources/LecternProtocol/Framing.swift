/// The 8-byte header in front of every message (all big-endian):
///
///     byte 0     command
///     byte 1     device id (client→server: sender, 0xFF before register;
///                           server→client: addressee, 0 broadcast, 0xFF unregistered)
///     bytes 2–3  tag (chosen by the client, echoed in the direct reply; 0 unsolicited)
///     bytes 4–7  length of the whole message, header included
public struct FrameHeader: Equatable, Hashable, Sendable {
    public static let size = 8

    public var command: UInt8
    public var deviceID: UInt8
    public var tag: UInt16
    public var length: UInt32

    public init(command: UInt8, deviceID: UInt8, tag: UInt16, length: UInt32) {
        self.command = command
        self.deviceID = deviceID
        self.tag = tag
        self.length = length
    }

    public var bodyLength: Int { Int(length) - Self.size }

    public func encode() -> [UInt8] {
        var w = ByteWriter(capacity: 8)
        encode(into: &w)
        return w.bytes
    }

    public func encode(into w: inout ByteWriter) {
        w.u8(command); w.u8(deviceID); w.u16(tag); w.u32(length)
    }

    /// Reads the 8 header bytes; nil if fewer than 8. Does not judge the length.
    public static func peek<C: Collection>(_ bytes: C) -> FrameHeader? where C.Element == UInt8 {
        guard bytes.count >= size else { return nil }
        var r = ByteReader(bytes.prefix(size))
        guard let c = try? r.u8(), let d = try? r.u8(), let t = try? r.u16(), let l = try? r.u32() else { return nil }
        return FrameHeader(command: c, deviceID: d, tag: t, length: l)
    }

    /// Decodes and validates a header: a length below 8 or above `maxLength` is malformed.
    public static func decode<C: Collection>(_ bytes: C, maxLength: UInt32 = ProtocolLimits.maxFrameLength) throws(LecternError) -> FrameHeader where C.Element == UInt8 {
        guard let h = peek(bytes) else { throw .malformedFrame(length: 0) }
        try h.validate(maxLength: maxLength)
        return h
    }

    public func validate(maxLength: UInt32 = ProtocolLimits.maxFrameLength) throws(LecternError) {
        if length < UInt32(Self.size) { throw .malformedFrame(length: length) }
        if length > maxLength { throw .frameTooLarge(length: length, limit: maxLength) }
    }
}

/// One complete frame: header plus body bytes.
public struct WireFrame: Equatable, Sendable {
    public var header: FrameHeader
    public var body: [UInt8]
    public init(header: FrameHeader, body: [UInt8]) {
        self.header = header
        self.body = body
    }
}

/// Incremental frame decoder: feed it whatever the socket delivered, in slices of any
/// size, and take complete frames out. A bad length (below 8 or above the limit) is
/// reported as soon as the 8 header bytes are in, without waiting for a body; after
/// that the decoder stays failed (the connection must be closed).
public struct FrameDecoder {
    public let maxFrameLength: UInt32
    private var buffer: [UInt8] = []
    private var start = 0
    private var failure: LecternError?

    public init(maxFrameLength: UInt32 = ProtocolLimits.maxFrameLength) {
        self.maxFrameLength = maxFrameLength
    }

    /// Bytes received but not yet returned as a frame.
    public var bufferedByteCount: Int { buffer.count - start }

    /// The header of the next frame, once its 8 bytes are here; after a framing error, the
    /// bad header (its tag is the one the error echoes, §2.5).
    public var nextHeader: FrameHeader? {
        buffer.count - start >= FrameHeader.size ? FrameHeader.peek(buffer[start..<(start + FrameHeader.size)]) : nil
    }

    /// Appends received bytes.
    public mutating func feed<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if start > 0 && (start >= 65_536 || start * 2 >= buffer.count) {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, nil if more bytes are needed; throws a fatal framing
    /// error (`malformedFrame` / `frameTooLarge`) for a bad length.
    public mutating func next() throws(LecternError) -> WireFrame? {
        if let f = failure { throw f }
        let available = buffer.count - start
        guard available >= FrameHeader.size,
            let header = FrameHeader.peek(buffer[start..<(start + FrameHeader.size)])
        else { return nil }
        do {
            try header.validate(maxLength: maxFrameLength)
        } catch {
            failure = error
            throw error
        }
        let total = Int(header.length)
        guard available >= total else { return nil }
        let body = Array(buffer[(start + FrameHeader.size)..<(start + total)])
        start += total
        if start == buffer.count { buffer.removeAll(keepingCapacity: true); start = 0 }
        return WireFrame(header: header, body: body)
    }

    /// Feeds bytes and returns every frame now complete.
    public mutating func decode<C: Collection>(_ bytes: C) throws(LecternError) -> [WireFrame] where C.Element == UInt8 {
        feed(bytes)
        var frames: [WireFrame] = []
        while let f = try next() { frames.append(f) }
        return frames
    }
}
