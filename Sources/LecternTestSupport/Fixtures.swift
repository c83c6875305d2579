import Foundation

/// What the tests share: PDFs made with cairo, the reference tools, temporary folders and
/// the built binaries. Used by test targets (and the benchmarks) only. Each concept has its
/// own file: TempDir, Decks, Clips, Run, Pdftoppm, Binaries, FreePort, Pause.
public enum Fixtures {
    public struct ToolError: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }
}
