/// The version of the Lectern wire protocol this build speaks.
public let lecternProtocolVersion: UInt16 = 1
/// Its minor version (docs/protocol.md §5): what this build added to version 1 that older
/// clients may ignore. Carried in the state as `protocolMinor`; 1: the wall's layout (§9.7);
/// 2: clips in any pane, pane-play (0x93) and `layout.soundPane` (§9.7, §23.1), and live
/// sharing (§29).
public let lecternProtocolMinor: UInt16 = 2

/// Fixed numbers of the wire protocol (docs/protocol.md, "Limits").
public enum ProtocolLimits {
    /// Largest value the header's length field may carry, in either direction
    /// (header included): 1 MiB of payload plus 64 KiB for the fields around it.
    public static let maxFrameLength: UInt32 = 0x0011_0000   // 1_114_112
    /// Largest payload of one upload chunk or one screenshot chunk.
    public static let maxChunkLength: Int = 1 << 20   // 1_048_576
    /// Device ids handed out to registered devices.
    public static let deviceIDs: ClosedRange<UInt8> = 1...254
    /// Header byte 1 of a client that has not registered yet, and of server frames to it.
    public static let unregisteredID: UInt8 = 0xFF
    /// Header byte 1 of a server frame meant for every device.
    public static let broadcastID: UInt8 = 0
    /// Longest device name, in UTF-8 bytes.
    public static let maxDeviceNameBytes = 64
    /// Longest file name carried by upload-begin, in UTF-8 bytes.
    public static let maxFileNameBytes = 255
    /// Longest room name carried by hello, in UTF-8 bytes.
    public static let maxRoomNameBytes = 255
    /// Longest error message, in UTF-8 bytes.
    public static let maxErrorMessageBytes = 1024
    /// Size of the hello challenge.
    public static let challengeLength = 32
    /// Size of a resume token.
    public static let resumeTokenLength = 16
    /// The server sends a ping when it has sent nothing, or received nothing, for this long.
    public static let pingIntervalSeconds: Double = 2
    /// A peer that has been silent this long is dead.
    public static let peerTimeoutSeconds: Double = 6
    /// A connection that has not registered within this time is closed.
    public static let registerTimeoutSeconds: Double = 30
    /// The server sends an upload-progress message every this many bytes received.
    public static let uploadProgressInterval: UInt64 = 4 << 20
    /// The finest upload-progress step: a file's progress comes every 1/16 of it, but not
    /// more often than every 64 KiB, and at least every `uploadProgressInterval`.
    public static let uploadProgressMinimumStep: UInt64 = 64 << 10

    /// The upload-progress step for a file of `size` bytes (docs/protocol.md §12.1).
    public static func uploadProgressStep(size: UInt64) -> UInt64 {
        min(uploadProgressInterval, max(uploadProgressMinimumStep, size / 16))
    }

    // MARK: what one connection may cost (docs/protocol.md, "Limits")

    /// Bytes the server keeps queued for one peer at most before it stops reading from it
    /// (its output budget); it reads again below `outputResumeBytes`.
    public static let outputBudgetBytes = 4 << 20
    public static let outputResumeBytes = 1 << 20
    /// A peer whose output stays over its budget this long is closed.
    public static let overBudgetSeconds: Double = 5
    /// Frames of one peer handled in a row before other peers get their turn.
    public static let framesPerTurn = 32
    /// Error replies an unregistered connection gets before the server closes it: the
    /// throttle's five free wrong guesses and its first "wait" reach the client first.
    public static let unregisteredErrorLimit = 6
    /// Screenshot and page-preview requests of one connection being answered at once.
    public static let picturesInFlight = 2
    /// Uploads one connection may have open at once, and all connections together.
    public static let uploadsPerConnection = 4
    public static let openUploads = 64
}
