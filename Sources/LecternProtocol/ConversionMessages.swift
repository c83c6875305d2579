import LecternModel

// Converted files (docs/protocol.md §30): an upload that is neither a PDF nor a clip (an
// office document, an image) is stored as it came and converted to a PDF on the
// appliance. While it converts, its uploader gets conversion-progress (0x3E) with the tag
// of the request it waits on (upload-finish, or an upload-begin of a file being
// converted); conversion-cancel (0x3F) stops a conversion of one's own upload.

/// conversion-progress (0x3E, S→C): where the conversion of an upload stands.
public struct ConversionProgress: Equatable, Sendable {
    public enum Stage: UInt8, Sendable, Codable {
        /// The file is stored on disk (it survives a restart) and waits for a converter.
        case queued = 1
        /// A converter works on it.
        case converting = 2
        /// Its first page is ready and may be presented (§30.8): the deck has that one page
        /// now, the rest converting (`done` 1 … of `total`); the upload-finish is still
        /// answered once, when the whole PDF exists or why not.
        case firstPage = 3
    }
    public var content: ContentID
    public var stage: Stage
    /// `.queued`: conversions ahead of this one (0: next).
    public var ahead: UInt8
    /// Pages (slides) converted so far, and in all; 0 while not known (a time-based bar
    /// then: `elapsedMs` of `budgetMs`).
    public var done: UInt32
    public var total: UInt32
    /// Milliseconds since the conversion started (0 while queued), and its wall-clock budget.
    public var elapsedMs: UInt32
    public var budgetMs: UInt32
    /// What the file was converted from: a short lower-case format name ("pptx", "jpeg"),
    /// 1–16 ASCII letters and digits.
    public var format: String

    public init(
        content: ContentID, stage: Stage, ahead: UInt8 = 0, done: UInt32 = 0, total: UInt32 = 0, elapsedMs: UInt32 = 0,
        budgetMs: UInt32 = 0, format: String
    ) {
        self.content = content
        self.stage = stage
        self.ahead = ahead
        self.done = done
        self.total = total
        self.elapsedMs = elapsedMs
        self.budgetMs = budgetMs
        self.format = format
    }
}

/// One conversion in the state's `conversions` list (§30.4): the room's queue, first
/// running, then waiting in order. Viewers see `null`.
public struct ConversionSnapshot: Codable, Equatable, Sendable {
    public var id: ContentID
    /// The file name given at upload.
    public var name: String
    public var format: String
    /// "queued" or "converting".
    public var stage: String
    /// The device that uploaded it (null: restarted after a restart of the service).
    public var uploader: DeviceID?
    public var done: UInt32
    public var total: UInt32
    public var elapsedMs: UInt32
    public var budgetMs: UInt32
    /// Pages that may be shown already (§30.8): 1 once its first page is ready, else 0.
    /// Optional only so that a state from an older server still parses.
    public var ready: UInt32?

    public init(
        id: ContentID, name: String, format: String, stage: ConversionProgress.Stage, uploader: DeviceID?, done: UInt32, total: UInt32,
        elapsedMs: UInt32, budgetMs: UInt32, ready: UInt32 = 0
    ) {
        self.id = id
        self.name = name
        self.format = format
        self.stage = stage == .queued ? "queued" : "converting"
        self.uploader = uploader
        self.done = done
        self.total = total
        self.elapsedMs = elapsedMs
        self.budgetMs = budgetMs
        self.ready = ready
    }

    enum CodingKeys: String, CodingKey { case id, name, format, stage, uploader, done, total, elapsedMs, budgetMs, ready }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(format, forKey: .format)
        try c.encode(stage, forKey: .stage)
        try c.encode(uploader, forKey: .uploader)
        try c.encode(done, forKey: .done)
        try c.encode(total, forKey: .total)
        try c.encode(elapsedMs, forKey: .elapsedMs)
        try c.encode(budgetMs, forKey: .budgetMs)
        try c.encode(ready ?? 0, forKey: .ready)
    }
}

/// The limits of a format name on the wire and in the state.
public enum ConversionFormatName {
    public static let maxBytes = 16
    public static func isValid(_ s: String) -> Bool {
        let b = Array(s.utf8)
        return !b.isEmpty && b.count <= maxBytes && b.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) }
    }
}

extension Body {
    static func conversionProgress(_ p: ConversionProgress, _ w: inout ByteWriter) {
        w.bytes(p.content.bytes)
        w.u8(p.stage.rawValue)
        w.u8(p.ahead)
        w.u32(p.done)
        w.u32(p.total)
        w.u32(p.elapsedMs)
        w.u32(p.budgetMs)
        let f = Array(p.format.utf8.prefix(ConversionFormatName.maxBytes))
        w.u8(UInt8(f.count))
        w.bytes(f)
    }
    static func conversionProgress(_ r: inout ByteReader) throws -> ConversionProgress {
        let c = try contentID(&r)
        guard let stage = ConversionProgress.Stage(rawValue: try r.u8()) else { throw WireError.invalid("stage must be 1, 2 or 3") }
        let ahead = try r.u8(), done = try r.u32(), total = try r.u32(), elapsed = try r.u32(), budget = try r.u32()
        let n = Int(try r.u8())
        let format = String(decoding: try r.bytes(n), as: UTF8.self)
        guard ConversionFormatName.isValid(format) else { throw WireError.invalid("the format is 1–16 lower-case ASCII letters and digits") }
        return ConversionProgress(
            content: c, stage: stage, ahead: ahead, done: done, total: total, elapsedMs: elapsed, budgetMs: budget, format: format)
    }
}
