import LecternProtocol

/// Everything the room knows about uploads, in one place: who owns each stored file, the
/// part file of each partial upload and the writer filling it, the bytes on disk (the
/// quota), and begins waiting for a part file to be let go of. Data only: `RoomCore`
/// drives it, the shell's writers do the I/O.
struct UploadLedger: Equatable, Sendable {
    /// Past this many bytes queued on one writer the room stops reading from the uploader
    /// (the disk is slower than the network); below `lowWater` it reads again.
    static let highWater = 8 << 20
    static let lowWater = 2 << 20
    /// A partial upload that made no progress for this long is given up (docs/protocol.md).
    static let staleSeconds: Double = 24 * 3600

    /// One connection's upload of one file.
    struct Upload: Equatable, Sendable {
        var session: UploadSession
        /// The writer storing its chunks.
        let writer: Int
        /// The tag of its upload-begin (upload-progress carries it).
        let beginTag: UInt16
        /// After a failed chunk or a take-over, later chunks of this file are dropped silently.
        var failed = false
        /// Another connection's upload-begin took the part file over: the next chunk and
        /// the finish are told so (`noUpload`), once each.
        var takenOver = false
        var toldTakenOver = false
    }

    /// A writer of a part file (in the shell), from open until it let go of the file.
    /// A chunk queued on a writer: its bytes, and the upload-progress due once it is written.
    struct Chunk: Equatable, Sendable {
        var bytes: Int
        var progress: UInt64?
    }

    struct Writer: Equatable, Sendable {
        let content: ContentID
        let connection: ConnectionID
        let beginTag: UInt16
        /// Chunks handed over and not yet written, oldest first: their size and the
        /// upload-progress due once each is in the file.
        var chunks: [Chunk] = []
        var queued = 0
        var failure: String?
    }

    /// A partial upload's file under the upload area.
    struct Part: Equatable, Sendable {
        /// Bytes in the file once the queued chunks are written.
        var size: UInt64
        /// The writer filling it now, if any.
        var writer: Int?
        /// Writers letting go of it (closing or finishing): nobody may start before they did.
        var leaving: Set<Int> = []
        /// Upload-begins to run again once the file is free.
        var waiting: [WaitingBegin] = []
        /// When it last changed (nil: not since the room started); a day without progress
        /// and it is given up.
        var touched: Double?
        var isFree: Bool { writer == nil && leaving.isEmpty }
    }

    struct WaitingBegin: Equatable, Sendable {
        let connection: ConnectionID
        let tag: UInt16
        let begin: UploadBegin
    }

    private var owners: [ContentID: Set<DeviceID>] = [:]
    var parts: [ContentID: Part]
    var writers: [Int: Writer] = [:]
    /// Bytes the content store holds.
    var storeBytes: UInt64
    private var lastWriter = 0

    init(parts: [ContentID: UInt64], storeBytes: UInt64) {
        self.parts = parts.mapValues { Part(size: $0) }
        self.storeBytes = storeBytes
    }

    /// What the quota counts: the bytes on disk, once — the store's files and what each
    /// partial upload's file holds (or will hold once its queued chunks are written),
    /// whatever an upload-begin claimed.
    var usedBytes: UInt64 { parts.values.reduce(storeBytes) { $0 + $1.size } }

    // MARK: owners

    func isOwner(_ device: DeviceID, of content: ContentID) -> Bool { owners[content]?.contains(device) == true }
    mutating func addOwner(_ device: DeviceID, of content: ContentID) { owners[content, default: []].insert(device) }
    mutating func removeOwner(_ device: DeviceID) {
        for k in owners.keys { owners[k]?.remove(device) }
    }

    // MARK: writers

    /// A new writer for `content`'s part file, truncated to `offset`: the bytes beyond
    /// it leave the quota.
    mutating func openWriter(_ content: ContentID, connection: ConnectionID, tag: UInt16, offset: UInt64, now: Double) -> Int {
        lastWriter += 1
        var part = parts[content] ?? Part(size: 0)
        part.size = offset
        part.touched = now
        part.writer = lastWriter
        parts[content] = part
        writers[lastWriter] = Writer(content: content, connection: connection, beginTag: tag)
        return lastWriter
    }

    /// The part's writer stops being its writer (closing, finishing, or failed to open).
    mutating func release(_ content: ContentID, writer: Int, leaving: Bool) {
        guard var part = parts[content] else { return }
        if part.writer == writer { part.writer = nil }
        if leaving { part.leaving.insert(writer) }
        parts[content] = part
    }

    /// A writer has let go of the part file, which now holds `size` bytes (nil: the file
    /// is gone). Returns the begins that waited for it when the file is now free.
    mutating func writerLeft(_ content: ContentID, writer: Int, size: UInt64?) -> [WaitingBegin] {
        writers[writer] = nil
        guard var part = parts[content] else { return [] }
        part.leaving.remove(writer)
        if let size { part.size = size } else if part.writer == nil { part.size = 0 }
        var ready: [WaitingBegin] = []
        if part.isFree {
            ready = part.waiting
            part.waiting = []
        }
        parts[content] = part.isFree && part.size == 0 && ready.isEmpty ? nil : part
        return ready
    }

    mutating func queue(_ bytes: Int, progress: UInt64?, on writer: Int, now: Double) {
        writers[writer]?.chunks.append(Chunk(bytes: bytes, progress: progress))
        writers[writer]?.queued += bytes
        if let content = writers[writer]?.content {
            parts[content]?.size += UInt64(bytes)
            parts[content]?.touched = now
        }
    }

    /// Part files nobody writes or waits for that made no progress since `before` (or
    /// hold nothing): given up.
    mutating func removeStale(before: Double, now: Double) -> [ContentID] {
        var gone: [ContentID] = []
        for (content, part) in parts where part.isFree && part.waiting.isEmpty {
            guard let touched = part.touched else {
                parts[content]?.touched = now   // first seen now: its day starts
                continue
            }
            if part.size == 0 || touched < before { gone.append(content) }
        }
        for c in gone { parts[c] = nil }
        return gone.sorted()
    }

    /// The oldest queued chunk of `writer` is written (or failed): the progress now due.
    mutating func written(on writer: Int, failure: String?) -> (writer: Writer, progress: UInt64?)? {
        guard var w = writers[writer], !w.chunks.isEmpty else { return nil }
        let chunk = w.chunks.removeFirst()
        w.queued -= chunk.bytes
        if let failure, w.failure == nil { w.failure = failure }
        writers[writer] = w
        return (w, failure == nil ? chunk.progress : nil)
    }
}
