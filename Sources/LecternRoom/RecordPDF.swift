/// The meeting record's PDF once made (§26): its size and the shell's open file, which the
/// core never touches, only hands back in `.sendRecord` (so it is never in memory whole).
public final class RecordPDF: Equatable, Sendable {
    public let size: Int
    /// The shell's handle of the file (the service's `FileChunks`).
    public let file: any Sendable

    public init(size: Int, file: any Sendable) {
        self.size = size
        self.file = file
    }

    public static func == (a: RecordPDF, b: RecordPDF) -> Bool { a === b }
}
