import Foundation

extension Fixtures {
    /// Where the package's built executables are (next to the test bundle).
    public static func binary(_ name: String) throws -> String {
        var dir = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        for b in Bundle.allBundles where b.bundlePath.hasSuffix(".xctest") {
            let candidate = b.bundleURL.deletingLastPathComponent().appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        let fallback = Repository.path(".build/debug/" + name)
        if FileManager.default.isExecutableFile(atPath: fallback) { return fallback }
        throw ToolError(description: "built binary \(name) not found: build with `swift build` (make test does)")
    }
}
