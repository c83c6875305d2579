import Foundation
import Synchronization

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
final class TempDirs: Sendable {
    static let shared = TempDirs()
    private let paths = Mutex<[String]>([])

    private init() {
        if ProcessInfo.processInfo.environment["LECTERN_KEEP_TEMP"] == nil {
            atexit { TempDirs.shared.removeAll() }
        }
    }

    func add(_ path: String) {
        paths.withLock { $0.append(path) }
    }

    private func removeAll() {
        let all = paths.withLock { paths in
            defer { paths = [] }
            return paths
        }
        for p in all { try? FileManager.default.removeItem(atPath: p) }
    }
}
