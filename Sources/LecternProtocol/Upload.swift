import LecternModel

/// Server-side checks and bookkeeping for one upload (docs/protocol.md, "Uploads").
/// The service stores the bytes; this keeps the offsets honest.
public struct UploadSession: Equatable, Sendable {
    public let content: ContentID
    public let size: UInt64
    public let name: String
    public let kind: ContentKind?
    /// Bytes stored so far: the offset the next chunk must start at.
    public private(set) var stored: UInt64
    private var lastProgress: UInt64
    public let progressInterval: UInt64

    /// `alreadyStored`: bytes of this file the store kept from an earlier attempt.
    /// `progressInterval`: nil for the protocol's step for the file's size.
    public init(begin: UploadBegin, alreadyStored: UInt64, progressInterval: UInt64? = nil) {
        self.content = begin.content
        self.size = begin.size
        self.name = begin.name
        self.kind = begin.kind
        self.stored = min(alreadyStored, begin.size)
        self.lastProgress = self.stored
        self.progressInterval = max(1, progressInterval ?? ProtocolLimits.uploadProgressStep(size: begin.size))
    }

    /// Validates an upload-begin against the limits. `freeQuota` is what the quota still
    /// allows, not counting bytes already stored for this file (`alreadyStored`).
    /// `maxFileText`: the limit as the admin wrote it, for the refusal's message.
    public static func checkBegin(
        _ begin: UploadBegin, maxFileSize: UInt64, maxFileText: String? = nil, quota: UInt64, freeQuota: UInt64, alreadyStored: UInt64 = 0
    ) throws(LecternError) {
        guard FileName.isValid(begin.name) else { throw .invalidFileName }
        // An empty file is neither a PDF nor a clip: refused before anything is sent.
        if begin.size == 0 {
            throw LecternError(.unsupportedFileType, message: "The file is empty: there is nothing in it to show. Choose it again (it may not have finished downloading).")
        }
        if begin.size > maxFileSize { throw .fileTooLarge(limit: maxFileSize, text: maxFileText) }
        let missing = begin.size - min(alreadyStored, begin.size)
        if missing > freeQuota { throw .quotaFull(quota: quota) }
    }

    /// Accounts for a chunk. Throws `wrongOffset` unless it starts at `stored`, and
    /// `beyondDeclaredSize` if it runs past the announced size. Returns the new stored
    /// count when an upload-progress message is due (every `progressInterval` bytes —
    /// 1/16 of the file, from 64 KiB to 4 MiB — and
    /// at the end), else nil.
    public mutating func accept(offset: UInt64, count: Int) throws(LecternError) -> UInt64? {
        guard offset == stored else { throw .wrongOffset(expected: stored) }
        let (end, overflow) = offset.addingReportingOverflow(UInt64(count))
        guard !overflow, end <= size else { throw .beyondDeclaredSize(size: size) }
        stored = end
        if stored == size || stored - lastProgress >= progressInterval {
            lastProgress = stored
            return stored
        }
        return nil
    }

    public var isComplete: Bool { stored == size }

    /// Throws `uploadIncomplete` if upload-finish comes too early.
    public func checkFinish() throws(LecternError) {
        guard isComplete else { throw .uploadIncomplete(stored: stored, size: size) }
    }
}

/// Client side: the byte ranges to send, from the server's resume offset on.
public enum UploadPlan {
    public static func chunks(size: UInt64, from offset: UInt64, chunkSize: Int = ProtocolLimits.maxChunkLength) -> [Range<UInt64>] {
        let step = UInt64(max(1, min(chunkSize, ProtocolLimits.maxChunkLength)))
        var out: [Range<UInt64>] = []
        var o = min(offset, size)
        while o < size {
            let e = min(size, o + step)
            out.append(o..<e)
            o = e
        }
        return out
    }
}
