import Foundation
import LecternTestSupport

/// Where the screenshots for people go: $LECTERN_TEST_OUTPUT/web, else .build/test-output/web.
enum TestOutput {
    static var directory: String {
        let base: String
        if let env = ProcessInfo.processInfo.environment["LECTERN_TEST_OUTPUT"], !env.isEmpty {
            base = env
        } else {
            base = Repository.path(".build/test-output")
        }
        let dir = base + "/web"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static func write(_ png: Data, _ name: String) throws -> String {
        let path = directory + "/" + name
        try png.write(to: URL(fileURLWithPath: path))
        return path
    }
}
