import LecternModel

// The bodies of the upload messages (docs/protocol.md §6.7).

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
