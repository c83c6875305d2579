import Foundation
import Glibc

extension Fixtures {
    /// Runs a program; throws when it is missing (tests fail loudly). Output goes through
    /// temporary files, not pipes, so a program that leaves a child running in the
    /// background (QEMU) doesn't keep us waiting for an end of file.
    @discardableResult
    public static func run(_ tool: String, _ args: [String], stdin: Data? = nil) throws -> (out: Data, err: String, status: Int32) {
        let base = NSTemporaryDirectory() + "lectern-run-\(UUID().uuidString)"
        let outPath = base + ".out", errPath = base + ".err", inPath = base + ".in"
        defer { for p in [outPath, errPath, inPath] { unlink(p) } }
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        _ = FileManager.default.createFile(atPath: inPath, contents: stdin ?? Data())
        // posix_spawn and waitpid, not Foundation's Process: Process learns of the exit
        // through a descriptor that background grandchildren (QEMU) inherit and keep open.
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_TRUNC, 0o600)
        let argv = (["/usr/bin/env", tool] + args).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/usr/bin/env", &actions, nil, argv, environ)
        guard rc == 0 else { throw ToolError(description: "can't run \(tool): \(String(cString: strerror(rc)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = status & 0x7f == 0
        let code: Int32 = exited ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let outData = (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data()
        let e = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        if code == 127 { throw ToolError(description: "\(tool) is not installed (board/install-deps installs it): \(e)") }
        return (outData, e, code)
    }
}
