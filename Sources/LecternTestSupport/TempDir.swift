import Foundation

extension Fixtures {
    /// A fresh folder under the system temp dir, removed when the test (or bench) process exits
    /// normally; `LECTERN_KEEP_TEMP=1` keeps them for a post-mortem. A run that leaves its folders
    /// behind fills a small disk: a bench's protocol folder alone is 1.4 GB.
    public static func tempDir(_ name: String = "t") -> String {
        let d = NSTemporaryDirectory() + "lectern-\(name)-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        TempDirs.shared.add(d)
        return d
    }
}

/// The folders `Fixtures.tempDir` made in this process, removed at exit.
final class TempDirs: @unchecked Sendable {
    static let shared = TempDirs()
    private let lock = NSLock()
    private var paths: [String] = []

    private init() {
        if ProcessInfo.processInfo.environment["LECTERN_KEEP_TEMP"] == nil {
            atexit { TempDirs.shared.removeAll() }
        }
    }

    func add(_ path: String) {
        lock.lock()
        paths.append(path)
        lock.unlock()
    }

    private func removeAll() {
        lock.lock()
        let all = paths
        paths = []
        lock.unlock()
        for p in all { try? FileManager.default.removeItem(atPath: p) }
    }
}
