/// What a client needs to know before it uploads (docs/protocol.md §30.10): the largest file
/// the appliance takes, so that a client refuses a larger one before reading or hashing it,
/// and says so in the units the admin wrote (`max_upload_mb = 100`: "100 MB").
public struct UploadsSnapshot: Codable, Equatable, Sendable {
    /// The largest file an upload-begin may announce, bytes (`fileTooLarge` above it).
    public var maxFileBytes: UInt64
    /// The same limit as the admin wrote it, for people: "100 MB".
    public var maxFileText: String

    public init(maxFileBytes: UInt64 = 0, maxFileText: String = "") {
        self.maxFileBytes = maxFileBytes
        self.maxFileText = maxFileText
    }
}
