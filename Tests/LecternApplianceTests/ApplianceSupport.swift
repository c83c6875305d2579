import Foundation
import LecternTestSupport
import XCTest

/// The repository checkout these tests run from (board/, systemd/, docs/).
var repoRoot: String { Repository.root }

func repoFile(_ relative: String) throws -> String {
    let path = repoRoot + "/" + relative
    guard let data = FileManager.default.contents(atPath: path) else {
        throw Fixtures.ToolError(description: "\(path) is missing")
    }
    return String(decoding: data, as: UTF8.self)
}

/// Runs a tool and fails (throws) unless it exits 0; returns stdout and stderr.
@discardableResult
func runOK(_ tool: String, _ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> (out: String, err: String) {
    let r = try Fixtures.run(tool, args)
    let out = String(decoding: r.out, as: UTF8.self)
    guard r.status == 0 else {
        throw Fixtures.ToolError(description: "\(tool) \(args.joined(separator: " ")) exited \(r.status):\n\(r.err)\(out)")
    }
    return (out, r.err)
}

func writeFile(_ path: String, _ text: String, mode: Int? = nil) throws {
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    if let mode { try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path) }
}
