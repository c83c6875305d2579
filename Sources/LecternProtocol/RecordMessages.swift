import LecternModel

// The meeting record's messages (docs/protocol.md §26): record-request (0xB0, empty body),
// record-progress (0xB1) while the PDF is made, then record-data (0xB2) pieces of it.

/// record-progress (0xB1): `done` of `total` record pages drawn so far (cover included).
public struct RecordProgress: Equatable, Sendable {
    public var done: UInt16
    public var total: UInt16
    public init(done: UInt16, total: UInt16) {
        self.done = done
        self.total = total
    }
}

/// record-data (0xB2): one piece of the record's PDF; `pages` counts the PDF's pages
/// (cover included), the same in every piece.
public struct RecordChunk: Equatable, Sendable {
    public var pages: UInt16
    public var totalSize: UInt32
    public var offset: UInt32
    public var data: [UInt8]
    public init(pages: UInt16, totalSize: UInt32, offset: UInt32, data: [UInt8]) {
        self.pages = pages
        self.totalSize = totalSize
        self.offset = offset
        self.data = data
    }
    public var isLast: Bool { UInt64(offset) + UInt64(data.count) >= UInt64(totalSize) }

    /// The first bytes of a record-data frame whose data (`dataCount` bytes, read from the
    /// file straight after them) is not in memory yet: the header with the whole frame's
    /// length, then `pages`, `totalSize` and `offset`.
    public static func frameHead(pages: UInt16, totalSize: UInt32, offset: UInt32, dataCount: Int, tag: UInt16, deviceID: UInt8) -> [UInt8] {
        var head = Message.recordData(RecordChunk(pages: pages, totalSize: totalSize, offset: offset, data: [])).encode(tag: tag, deviceID: deviceID)
        let length = UInt32(head.count + dataCount)
        head[4] = UInt8(length >> 24)
        head[5] = UInt8((length >> 16) & 0xFF)
        head[6] = UInt8((length >> 8) & 0xFF)
        head[7] = UInt8(length & 0xFF)
        return head
    }

    /// Splits a PDF into record-data pieces of at most `chunkSize` bytes (at least one).
    public static func split(_ pdf: [UInt8], pages: Int, chunkSize: Int = ProtocolLimits.maxChunkLength) -> [RecordChunk] {
        let size = max(1, min(chunkSize, ProtocolLimits.maxChunkLength))
        let n = UInt16(clamping: pages)
        if pdf.isEmpty { return [RecordChunk(pages: n, totalSize: 0, offset: 0, data: [])] }
        return stride(from: 0, to: pdf.count, by: size).map { o in
            RecordChunk(pages: n, totalSize: UInt32(clamping: pdf.count), offset: UInt32(clamping: o), data: Array(pdf[o..<min(o + size, pdf.count)]))
        }
    }
}

/// The record as the state shows it (`record` in the snapshot): whether the room keeps
/// one, how many pages it has now, and who besides the moderator may download it.
public struct RecordSnapshot: Codable, Equatable, Sendable {
    public var on: Bool
    /// Pages of the record now, cover not counted.
    public var pages: Int
    /// Every presenter may (`record_presenters`).
    public var presentersMayDownload: Bool
    /// Whoever leads may (a room without a moderator passcode).
    public var leadMayDownload: Bool
    public init(on: Bool, pages: Int, presentersMayDownload: Bool, leadMayDownload: Bool = false) {
        self.on = on
        self.pages = pages
        self.presentersMayDownload = presentersMayDownload
        self.leadMayDownload = leadMayDownload
    }
}

extension Body {
    static func recordProgress(_ p: RecordProgress, _ w: inout ByteWriter) {
        w.u16(p.done); w.u16(p.total)
    }
    static func recordProgress(_ r: inout ByteReader) throws -> RecordProgress {
        RecordProgress(done: try r.u16(), total: try r.u16())
    }
    static func recordData(_ c: RecordChunk, _ w: inout ByteWriter) {
        w.u16(c.pages); w.u32(c.totalSize); w.u32(c.offset); w.bytes(c.data)
    }
    static func recordData(_ r: inout ByteReader) throws -> RecordChunk {
        let pages = try r.u16(), total = try r.u32(), offset = try r.u32()
        let data = r.rest()
        guard data.count <= ProtocolLimits.maxChunkLength else { throw WireError.invalid("a chunk carries at most \(ProtocolLimits.maxChunkLength) bytes") }
        guard UInt64(offset) + UInt64(data.count) <= UInt64(total) else { throw WireError.invalid("the chunk ends past the total size") }
        return RecordChunk(pages: pages, totalSize: total, offset: offset, data: data)
    }
}
