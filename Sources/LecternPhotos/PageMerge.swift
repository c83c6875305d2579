import Dispatch
import Foundation
import Glibc
import LecternConvert
import LecternModel
import Synchronization

/// One-page decks put together into one PDF, their pages unchanged (`qpdf --empty --pages`):
/// an image set's deck (§30.9). qpdf runs under util-linux's `prlimit` (256 MB of address
/// space, `seconds` of processor time), within twice that of wall-clock time, and is killed
/// when `stop` fires. The PDF it writes is read by the bounded deck probe afterwards, as any.
enum PageMerge {
    static let memoryBytes = 256 << 20

    static func run(qpdf: String, pages: [String], output: String, seconds: Int, stop: ConversionStop) throws(ConversionFailure) {
        let prlimit = "/usr/bin/prlimit"
        let merge = [qpdf, "--empty", "--pages"] + pages + ["--", output]
        let argv =
            FileManager.default.isExecutableFile(atPath: prlimit)
            ? [prlimit, "--as=\(memoryBytes)", "--cpu=\(max(1, seconds))", "--"] + merge : merge
        // posix_spawn and waitpid, not Foundation's Process (which reaps its children itself).
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let cargs = argv.map { strdup($0) } + [nil]
        defer { for a in cargs { free(a) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, argv[0], &actions, nil, cargs, environ) == 0 else { throw .unavailable("qpdf could not be started") }
        // Killed when stopped or past the deadline, but only while not yet reaped (its pid
        // is then never another process's).
        let running = Mutex(true)
        let killIt: @Sendable () -> Void = { [pid] in running.withLock { if $0 { kill(pid, SIGKILL) } } }
        stop.onStop(killIt)
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(2 * max(1, seconds) + 5), execute: killIt)
        // Waits for its end without reaping it (WNOWAIT), then reaps it under the lock.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        let status = running.withLock { alive -> Int32 in
            alive = false
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return status
        }
        if stop.isStopped { throw .stopped }
        let exited = status & 0x7F == 0, code = (status >> 8) & 0xFF
        // qpdf exits 3 for warnings with a good output.
        guard exited, code == 0 || code == 3, FileManager.default.fileExists(atPath: output) else {
            unlink(output)
            throw .unreadable("its images' pages could not be put together")
        }
    }
}
