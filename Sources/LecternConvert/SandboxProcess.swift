import Foundation
import LecternModel
import LecternSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with `posix_spawn` in a process group of its own, its standard
/// input and output on pipes, its standard error thrown away: the sandbox's outer process.
/// Killing it (`kill`) sends SIGKILL to its group; bubblewrap's `--die-with-parent` and its
/// PID namespace take every process inside with it.
final class SandboxProcess: Sendable {
    let pid: pid_t
    /// Write end of its standard input, read end of its standard output.
    let input: Int32
    let output: Int32

    struct SpawnError: Error, CustomStringConvertible {
        let description: String
    }

    /// `errors`: where its standard error goes (nil: thrown away).
    init(_ arguments: [String], environment: [String] = ["PATH=/usr/bin:/bin", "LANG=C.UTF-8"], errors: String? = nil) throws {
        var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else {
            throw SpawnError(description: "pipe: \(String(cString: strerror(errno)))")
        }
        // Not inherited by other children (dup2 onto 0 and 1 makes the child's own copies).
        for fd in toChild + fromChild { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, errors ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group (killed as one); signals at their defaults.
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGINT)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var child: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        let r = posix_spawn(&child, arguments[0], &actions, &attributes, argv, envp)
        close(toChild[0])
        close(fromChild[1])
        guard r == 0 else {
            close(toChild[1])
            close(fromChild[0])
            throw SpawnError(description: "\(arguments[0]): \(String(cString: strerror(r)))")
        }
        pid = child
        input = toChild[1]
        output = fromChild[0]
    }

    /// Writes `line` and a newline to its standard input.
    func send(_ line: String) -> Bool {
        let bytes = Array((line + "\n").utf8)
        return bytes.withUnsafeBytes { b in
            var done = 0
            while done < b.count {
                let n = write(input, b.baseAddress! + done, b.count - done)
                if n < 0, errno == EINTR { continue }
                if n <= 0 { return false }
                done += n
            }
            return true
        }
    }

    /// The next line of its standard output (without the newline), waiting at most until
    /// `deadline` (monotonic seconds); nil at its end, on a line longer than 4 KiB, or past
    /// the deadline.
    func readLine(reader: inout LineReader, until deadline: Double) -> String? {
        reader.next(fd: output, until: deadline)
    }

    /// Kills its whole group (SIGKILL).
    func kill() {
        _ = Glibc.kill(-pid, SIGKILL)
        _ = Glibc.kill(pid, SIGKILL)
    }

    /// Waits for it to end, closes the pipes, and returns its wait status (0: exit 0).
    @discardableResult
    func reap() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        close(input)
        close(output)
        return status
    }
}

/// Lines from a pipe, read with `poll` so a silent child can't hold the reader forever.
struct LineReader {
    private var buffer: [UInt8] = []
    static let maxLine = 4096

    mutating func next(fd: Int32, until deadline: Double) -> String? {
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            if buffer.count > Self.maxLine { return nil }
            let left = deadline - Self.now()
            if left <= 0 { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&p, 1, Int32(min(left * 1000 + 1, 500)))
            if r < 0, errno != EINTR { return nil }
            if r <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(fd, &chunk, chunk.count)
            if n < 0, errno == EINTR || errno == EAGAIN { continue }
            if n <= 0 { return nil }
            buffer += chunk[0..<n]
        }
    }

    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}

/// The one thread that starts sandboxes. bubblewrap's `--die-with-parent` (PR_SET_PDEATHSIG)
/// fires when the *thread* that started it ends, not the process: a sandbox started from a
/// dispatch queue's worker or a conversion's thread would be killed when that thread is
/// retired. This thread lives as long as the service, so a sandbox dies with the service
/// (even by kill -9) and never before.
final class SandboxSpawner: Sendable {
    static let shared = SandboxSpawner()
    private let requests = Mutex<[@Sendable () -> Void]>([])
    private let bell = DispatchSemaphore(value: 0)

    private init() {
        let thread = Thread { [self] in
            ThreadName.set("lectern.spawner")   // the name the kernel shows (/proc, top -H)
            while true {
                bell.wait()
                for r in requests.withLock({ q -> [@Sendable () -> Void] in
                    defer { q = [] }; return q
                }) { r() }
            }
        }
        thread.name = "lectern.spawner"
        thread.start()
    }

    /// Starts `arguments` on the spawner's thread and returns it.
    func spawn(_ arguments: [String], errors: String?) throws -> SandboxProcess {
        let result = Mutex<Result<SandboxProcess, Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        requests.withLock {
            $0.append {
                result.withLock { $0 = Result { try SandboxProcess(arguments, errors: errors) } }
                done.signal()
            }
        }
        bell.signal()
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
