import Foundation

/// The checkout the tests (and the benchmarks) run from: the one way to find board/,
/// docs/, systemd/, Sources/ and .build/.
public enum Repository {
    /// The nearest folder holding Package.swift above this source file (where it was
    /// compiled), else above the working directory.
    public static let root: String = {
        let fm = FileManager.default
        for start in [
            URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent(),
            URL(fileURLWithPath: fm.currentDirectoryPath),
        ] {
            var dir = start
            while dir.path != "/" {
                if fm.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { return dir.path }
                dir.deleteLastPathComponent()
            }
        }
        return fm.currentDirectoryPath
    }()

    /// `relative` (e.g. "docs/protocol.md") in the checkout.
    public static func path(_ relative: String) -> String { root + "/" + relative }
}
