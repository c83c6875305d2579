import Foundation
import Glibc
import LecternModel
import LecternSystem
import Synchronization

/// A page renderer in a process of its own (`lecternd --render-worker`), so a page that
/// takes too long or too much can be stopped: the service side of it.
///
/// One page at a time. Each request goes over a SOCK_SEQPACKET socket pair with a memfd
/// the worker draws the page into (`SharedFrame`: no pixel is copied). The worker limits
/// itself (RLIMIT_AS, RLIMIT_CPU) before it reads anything; here, a render past its
/// wall-clock budget gets the worker SIGKILLed, and a worker that dies (its memory limit,
/// a crash on a hostile file) is the same: the caller gets `ContentError.tooSlow` or
/// `.overLimits`, and a fresh worker is started at once, so the next render waits for
/// nothing more than that start.
///
/// The process, its socket, the serial, the flags, the counters and `upkeep` are behind
/// `state` (a `Mutex`, never held while waiting on the worker); `jobLock` lets one render at
/// a time talk to it.
public final class RenderWorker: Sendable {
    public struct Limits: Equatable, Sendable {
        /// The worker's address space (RLIMIT_AS), bytes.
        public var memoryBytes: Int
        /// CPU seconds the worker may use in all (RLIMIT_CPU): a backstop only, the
        /// wall-clock budget stops a page long before.
        public var cpuSeconds: Int
        /// Pages a worker draws before it is replaced, whatever its growth (`WorkerUpkeep`).
        public var maxPages: Int
        public init(memoryBytes: Int, cpuSeconds: Int, maxPages: Int = 1000) {
            self.memoryBytes = memoryBytes; self.cpuSeconds = cpuSeconds; self.maxPages = maxPages
        }
    }

    /// Thrown when `cancel()` stopped the render (a newer screen change overtook it).
    public struct Cancelled: Error, CustomStringConvertible {
        public var description: String { "the render was cancelled" }
    }

    /// The worker died on a page (not killed by us): see `render`.
    private struct Died: Error {}

    public let name: String
    public let executable: String
    public let limits: Limits
    /// One render at a time.
    private let jobLock = NSLock()
    /// The process, the socket and the counters (never held while waiting).
    private struct State {
        var pid: pid_t = 0
        var socket: Int32 = -1
        var serial: UInt32 = 0
        var busy = false
        var cancelled = false
        /// Bumped by `cancel()`: a render asked for before it doesn't start after it.
        var generation = 0
        var spawns = 0
        var kills = 0
        var deaths = 0
        var recycles = 0
        var retries = 0
        /// When the worker is replaced, and whether a refused page is tried again.
        var upkeep: WorkerUpkeep
    }
    private let state: Mutex<State>

    /// `executable` is a lecternd (the service's own: /proc/self/exe).
    public init(name: String, executable: String, limits: Limits) {
        self.name = name
        self.executable = executable
        self.limits = limits
        self.state = Mutex(State(upkeep: WorkerUpkeep(pageBudgetBytes: limits.memoryBytes, maxPages: limits.maxPages)))
    }

    deinit { stop() }

    /// Renders `page` of the PDF at `path` with `settings` into a new frame, within
    /// `budget` seconds: the frame, where the page sits in it and the page's transition, all
    /// from the worker's one reply.
    public func render(path: String, page: Int, settings: Compositor.Settings, part: PagePart = .whole, budget: Double) throws -> RenderedPage {
        let asked = state.withLock { $0.generation }
        jobLock.lock(); defer { jobLock.unlock() }
        let request = RenderWire.Request(
            serial: 0, path: path, page: page, width: settings.width, height: settings.height,
            background: settings.background, overscanPercent: settings.overscanPercent, part: part)
        let buffer = try SharedFrame.make(byteCount: request.byteCount)
        var keep = false
        defer { if !keep { SharedFrame.release(buffer) } }
        // A page refused for memory or time by a worker that had drawn pages before is
        // tried once more on a fresh one (`WorkerUpkeep`), with a budget of its own.
        var retried = false
        while true {
            try state.withLock { s throws(Cancelled) in
                if s.generation != asked { throw Cancelled() }
                s.cancelled = false
                s.busy = true
            }
            defer { state.withLock { $0.busy = false } }
            let before = state.withLock { $0.upkeep }
            let refusal: WorkerUpkeep.Refusal
            let error: ContentError
            do {
                let reply = try attempt(request, fd: buffer.fd, until: MonotonicClock.now() + budget, page: page, budget: budget)
                let e: ContentError
                switch reply.outcome {
                case .success(let drawn):
                    finishedPage()
                    // The box is the worker's word: one outside the frame is a broken render.
                    let box = drawn.pageRect
                    guard box.x >= 0, box.y >= 0, box.maxX <= request.width, box.maxY <= request.height else {
                        throw ContentError.damaged(detail: "the renderer placed page \(page) at \(box), outside the frame")
                    }
                    keep = true
                    return RenderedPage(
                        frame: SharedFrame.frame(buffer, width: request.width, height: request.height), pageRect: box, transition: drawn.transition)
                case .failure(let error): e = error
                }
                guard case .overLimits = e else {
                    finishedPage()
                    throw e
                }
                (refusal, error) = (.memory, e)
            } catch let e as ContentError {
                guard case .tooSlow = e else { throw e }
                (refusal, error) = (.time, e)   // the worker was killed, a fresh one started
            }
            guard before.verdict(on: refusal, retried: retried) == .retryOnFresh else {
                if refusal == .memory { finishedPage() }
                throw error
            }
            retried = true
            state.withLock { $0.retries += 1 }
            if refusal == .memory { recycle() }
        }
    }

    /// One try of `request`: a worker that dies on the page is tried once more, fresh,
    /// within the same deadline: one killed from outside just before (an admin, the OOM
    /// killer for another's sake) costs a respawn; a page that breaks the renderer breaks
    /// it twice.
    private func attempt(_ request: RenderWire.Request, fd: Int32, until deadline: Double, page: Int, budget: Double) throws -> RenderWire.Reply {
        for attempt in 0..<2 {
            let sent = try send(request, fd: fd)
            do {
                return try awaitReply(sent.socket, serial: sent.serial, until: deadline, page: page, budget: budget)
            } catch is Died where attempt == 0 {
                continue
            } catch is Died {
                break
            }
        }
        throw ContentError.overLimits(page: page, megabytes: limits.memoryBytes >> 20)
    }

    /// The worker finished a page and lives on: replaced now if it has grown too much.
    private func finishedPage() {
        let p = state.withLock { $0.pid }
        let footprint = p > 0 ? WorkerFootprint.bytes(pid: p) : nil
        let action = state.withLock { $0.upkeep.finishedPage(footprint: footprint) }
        if action == .recycle {
            state.withLock { $0.recycles += 1 }
            recycle()
        }
    }

    /// Replaces the (idle) worker with a fresh one.
    private func recycle() {
        _ = reap(countAsDeath: false)
        try? spawn()
    }

    /// Stops the render in progress, if any (its caller gets `Cancelled`), and any asked
    /// for before now that has not started.
    public func cancel() {
        state.withLock { s in
            s.generation += 1
            if s.busy, s.pid > 0 {
                s.cancelled = true
                kill(s.pid, SIGKILL)
            }
        }
    }

    /// Ends the worker (the service stops).
    public func stop() {
        let (p, s) = state.withLock { st in
            defer { st.pid = 0; st.socket = -1 }
            return (st.pid, st.socket)
        }
        if p > 0 {
            kill(p, SIGKILL)
            var status: Int32 = 0
            while waitpid(p, &status, 0) < 0 && errno == EINTR {}
        }
        if s >= 0 { close(s) }
    }

    /// Workers started, killed past their budget (or cancelled), and died on their own.
    public var spawns: Int { state.withLock { $0.spawns } }
    public var kills: Int { state.withLock { $0.kills } }
    public var deaths: Int { state.withLock { $0.deaths } }
    /// Workers replaced between pages for their growth or age, and pages tried again on a
    /// fresh worker after a refusal (`WorkerUpkeep`).
    public var recycles: Int { state.withLock { $0.recycles } }
    public var retries: Int { state.withLock { $0.retries } }
    /// Whether a page is being drawn now.
    public var rendering: Bool { state.withLock { $0.busy } }
    /// The worker's process id now (0: none running).
    public var processID: pid_t { state.withLock { $0.pid } }

    /// Starts the worker if none runs (the first render, or after `stop`).
    public func start() throws {
        jobLock.lock(); defer { jobLock.unlock() }
        if state.withLock({ $0.pid }) == 0 { try spawn() }
    }

    // MARK: the process

    /// Sends `request` (with the next serial) to a running worker, starting one if none
    /// runs, and once more to a fresh one if the worker had died since the last render.
    private func send(_ request: RenderWire.Request, fd: Int32) throws -> (socket: Int32, serial: UInt32) {
        for attempt in 0..<2 {
            if state.withLock({ $0.pid }) == 0 { try spawn() }
            let (s, n) = state.withLock { st -> (Int32, UInt32) in
                st.serial &+= 1
                return (st.socket, st.serial)
            }
            var r = request
            r.serial = n
            if SeqPacket.send(s, RenderWire.encode(r), fd: fd) { return (s, n) }
            // Gone since the last render (killed from outside, its CPU backstop): reap it.
            _ = reap(countAsDeath: attempt == 0)
        }
        throw SharedFrame.Failed(description: "the render worker can't be started")
    }

    /// Waits for the reply to `serial` until `deadline`: past it the worker is killed.
    private func awaitReply(_ s: Int32, serial: UInt32, until deadline: Double, page: Int, budget: Double) throws -> RenderWire.Reply {
        while true {
            let left = deadline - MonotonicClock.now()
            if left <= 0 {
                state.withLock { st in
                    st.busy = false
                    if st.pid > 0 { kill(st.pid, SIGKILL) }
                    st.kills += 1
                }
                _ = reap(countAsDeath: false)
                try? spawn()
                throw ContentError.tooSlow(page: page, seconds: budget)
            }
            var p = pollfd(fd: s, events: Int16(POLLIN), revents: 0)
            let n = poll(&p, 1, Int32(min(left * 1000 + 1, 3_600_000)))
            if n < 0 && errno == EINTR { continue }
            if n == 0 { continue }
            if let (bytes, fd) = SeqPacket.receive(s, max: RenderWire.maxMessage) {
                if fd >= 0 { close(fd) }
                guard let reply = try? RenderWire.decodeReply(bytes), reply.serial == serial else { continue }
                // Not busy from here: `cancel()` kills no worker that is done. One it
                // killed just before (the reply was on its way) is replaced now, so the
                // next render isn't sent to a dying process.
                let killed = state.withLock { st -> Bool in
                    st.busy = false
                    return st.cancelled
                }
                if killed {
                    _ = reap(countAsDeath: false)
                    try? spawn()
                }
                return reply
            }
            // The worker died: its memory limit, a crash on the file, or `cancel()`.
            let wasCancelled = state.withLock { st -> Bool in
                st.busy = false
                return st.cancelled
            }
            if wasCancelled { state.withLock { $0.kills += 1 } }
            _ = reap(countAsDeath: !wasCancelled)
            try? spawn()
            if wasCancelled { throw Cancelled() }
            throw Died()
        }
    }

    /// Waits for the (killed or dead) worker to end and closes its socket.
    private func reap(countAsDeath: Bool) -> Int32 {
        let (p, s) = state.withLock { st in
            defer {
                st.pid = 0; st.socket = -1
                if countAsDeath { st.deaths += 1 }
            }
            return (st.pid, st.socket)
        }
        var status: Int32 = 0
        if p > 0 {
            kill(p, SIGKILL)
            while waitpid(p, &status, 0) < 0 && errno == EINTR {}
        }
        if s >= 0 { close(s) }
        return status
    }

    private func spawn() throws {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw SharedFrame.Failed(description: "socketpair: \(String(cString: strerror(errno)))")
        }
        let (mine, theirs) = (fds[0], fds[1])
        defer { close(theirs) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Their end becomes the worker's descriptor 3 (dup2 clears close-on-exec; their
        // end is never 3 itself: 0–2 are open, and `mine` was allocated first).
        posix_spawn_file_actions_adddup2(&actions, theirs, RenderWorkerMain.socketDescriptor)
        let args = [
            executable, "--render-worker",
            "--render-memory-mb", String(limits.memoryBytes >> 20),
            "--render-cpu-seconds", String(limits.cpuSeconds),
        ]
        var env = ProcessInfo.processInfo.environment
        env["MALLOC_ARENA_MAX"] = "1"   // one thread: one heap (each arena reserves 64 MiB of address space)
        let envStrings = env.map { "\($0.key)=\($0.value)" }
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = envStrings.map { strdup($0) } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, nil, &argv, &envp)
        guard rc == 0 else {
            close(mine)
            throw SharedFrame.Failed(description: "render worker \(executable): \(String(cString: strerror(rc)))")
        }
        state.withLock { st in
            st.pid = child
            st.socket = mine
            st.spawns += 1
            st.upkeep.started()
        }
    }
}
