import LecternModel

// The bodies of screenshot-data and page-preview (docs/protocol.md §6.8–6.9).

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
    /// An optional last byte: 0 the page as the wall shows it (the default), 1 the notes
    /// half of a beamer notes deck (§20.3).
    public var notesHalf: Bool
    public init(content: ContentID, page: UInt32, maxWidth: UInt16, maxHeight: UInt16 = 0, notesHalf: Bool = false) {
        self.content = content
        self.page = page
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.notesHalf = notesHalf
    }
}
