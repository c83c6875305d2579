import Foundation

extension Fixtures {
    /// A fresh folder under the system temp dir, removed by nobody (tests are short-lived).
    public static func tempDir(_ name: String = "t") -> String {
        let d = NSTemporaryDirectory() + "lectern-\(name)-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }
}
