import Foundation
import Glibc
import LecternModel
import LecternSystem
import LecternPipeline
import LecternVideo

/// A live share's decoder in a process of its own (`lecternd --share-decoder`), so that a
/// stream that crashes FFmpeg, loops it or eats memory costs only that share
/// (docs/protocol.md §29.6): the service's side of it, driven by the share's decode loop.
///
/// One picture at a time over a SOCK_SEQPACKET socket pair. The encoded bytes are written
/// into an input memfd shared with the process; each request brings the memfd of a frame
/// the process draws the newest picture into, scaled to the pane with bars (`SharedFrame`):
/// the decoded picture never crosses, the drawn one is not copied. The process confines
/// itself (RLIMIT_AS, RLIMIT_CPU per picture); here, a picture past the stall deadline gets
/// it SIGKILLed (`.stalled`), and a process that dies (a crash, its limits, a kill from
/// outside) ends the share (`.crashed`). No second process is started for the share: a
/// stream that broke the decoder once ends.
public final class ShareDecoderProcess: ShareDecoding {
    public struct Limits: Equatable, Sendable {
        /// The process's address space beyond what it maps at start (RLIMIT_AS), bytes.
        public var memoryBytes: Int
        /// CPU seconds one picture may take (RLIMIT_CPU, a backstop behind the stall deadline).
        public var cpuSeconds: Int
        /// Longest one picture may take, wall clock.
        public var stallSeconds: Double
        public var maxSide: Int
        public var maxPixels: Int
        public init(memoryBytes: Int, cpuSeconds: Int, stallSeconds: Double, maxSide: Int, maxPixels: Int) {
            self.memoryBytes = memoryBytes; self.cpuSeconds = cpuSeconds; self.stallSeconds = stallSeconds
            self.maxSide = maxSide; self.maxPixels = maxPixels
        }
    }

    /// Frames kept for one share (the newest, the display loop's, one being drawn, spares).
    public static var poolCapacity: Int { ShareFramePool<Int32>.shareCapacity }
    /// The shared input: one encoded picture at most (a protocol frame is at most 1 MiB + 64 KiB).
    public static let inputBytes = 2 << 20
    /// How long the process may take to start (load lecternd, confine itself).
    public static let startSeconds = 15.0

    public let executable: String
    public let limits: Limits
    public let background: RGB
    private var pid: pid_t = 0
    private var socket: Int32 = -1
    private var input: SharedFrame.Buffer?
    private var serial: UInt32 = 0
    private var pool = ShareFramePool<Int32>(capacity: poolCapacity)
    /// Where the process writes decoded sound (made at the first sound).
    private var audioOut: SharedFrame.Buffer?

    /// Starts the process and waits (up to `startSeconds`) until it is ready.
    public init(executable: String, limits: Limits, background: RGB) throws {
        self.executable = executable
        self.limits = limits
        self.background = background
        do {
            input = try SharedFrame.fresh(Self.inputBytes)
            try spawn()
            let ready = try awaitReply(serial: 0, seconds: Self.startSeconds, stalled: .crashed("the decoder process didn't start in time"))
            guard ready.status == .noPicture else { throw ShareSource.Failure.crashed("the decoder process didn't start: \(ready.message)") }
        } catch {
            close()
            throw error as? ShareSource.Failure ?? ShareSource.Failure.crashed("the decoder process can't be started: \(error)")
        }
    }

    deinit { close() }

    public var processID: Int32? { pid > 0 ? pid : nil }

    public func decode(_ data: [UInt8], codec: ShareDecoder.Codec, generation: Int, width: Int, height: Int) throws -> Frame? {
        guard let input, data.count <= input.byteCount else {
            throw ShareSource.Failure.damaged("a picture of \(data.count) bytes is larger than \(Self.inputBytes >> 20) MiB")
        }
        data.withUnsafeBytes { input.memory.copyMemory(from: $0.baseAddress!, byteCount: data.count) }
        let c: UInt8 = codec == .h264 ? 1 : codec == .vp8 ? 2 : 3
        return try draw(.decode, codec: c, generation: UInt32(truncatingIfNeeded: generation), length: UInt32(data.count), width: width, height: height)
    }

    public func decodeAudio(_ data: [UInt8], channels: Int) throws -> [Int16] {
        guard pid > 0, let input else { throw ShareSource.Failure.crashed("the decoder process has ended") }
        guard data.count <= input.byteCount else { throw ShareSource.Failure.damaged("a sound packet of \(data.count) bytes") }
        if audioOut == nil {
            do { audioOut = try SharedFrame.fresh(ShareAudioDecoder.maxFrames * 4) } catch { throw ShareSource.Failure.crashed("no memory for sound: \(error)") }
        }
        let out = audioOut!
        data.withUnsafeBytes { input.memory.copyMemory(from: $0.baseAddress!, byteCount: data.count) }
        serial &+= 1
        if serial == 0 { serial = 1 }
        let request = ShareDecoderWire.Request(
            operation: .audio, codec: UInt8(channels), serial: serial, generation: 0, length: UInt32(data.count), width: ShareAudioDecoder.maxFrames,
            height: 1, background: background)
        guard SeqPacket.send(socket, ShareDecoderWire.encode(request), fd: out.fd) else { throw died() }
        let reply = try awaitReply(serial: serial, seconds: limits.stallSeconds, stalled: .stalled(seconds: limits.stallSeconds))
        guard reply.status == .drawn else { throw ShareSource.Failure.damaged("its sound: \(reply.message)") }
        let n = min(Int(reply.count), ShareAudioDecoder.maxFrames) * AudioDecoder.channels
        return Array(UnsafeBufferPointer(start: out.memory.assumingMemoryBound(to: Int16.self), count: n))
    }

    public func redraw(width: Int, height: Int) throws -> Frame? {
        try draw(.redraw, codec: 0, generation: 0, length: 0, width: width, height: height)
    }

    public func close() {
        if pid > 0 {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            pid = 0
        }
        if socket >= 0 { Glibc.close(socket) }
        socket = -1
        pool.removeAll()
        if let b = audioOut {
            munmap(b.memory, b.byteCount)
            Glibc.close(b.fd)
            audioOut = nil
        }
        if let b = input {
            munmap(b.memory, b.byteCount)
            Glibc.close(b.fd)
            input = nil
        }
    }

    // MARK: one picture

    private func draw(
        _ operation: ShareDecoderWire.Operation, codec: UInt8, generation: UInt32, length: UInt32, width: Int, height: Int
    ) throws -> Frame? {
        guard pid > 0 else { throw ShareSource.Failure.crashed("the decoder process has ended") }
        let target = try frame(width: width, height: height)
        serial &+= 1
        if serial == 0 { serial = 1 }   // 0 is the process's "ready"
        let request = ShareDecoderWire.Request(
            operation: operation, codec: codec, serial: serial, generation: generation, length: length, width: width, height: height,
            background: background)
        guard SeqPacket.send(socket, ShareDecoderWire.encode(request), fd: target.fd) else { throw died() }
        let reply = try awaitReply(serial: serial, seconds: limits.stallSeconds, stalled: .stalled(seconds: limits.stallSeconds))
        switch reply.status {
        case .drawn: return target.frame
        case .noPicture: return nil
        case .failed: throw ShareSource.Failure.damaged(reply.message)
        }
    }

    /// A free frame of the pane's size over a memfd (made when none is free).
    private func frame(width: Int, height: Int) throws -> (frame: Frame, fd: Int32) {
        if let f = pool.free(width: width, height: height) { return (f.frame, f.extra) }
        let b: SharedFrame.Buffer
        do { b = try SharedFrame.fresh(width * 4 * height) } catch { throw ShareSource.Failure.crashed("no memory for a picture: \(error)") }
        let (fd, address, bytes) = (b.fd, UInt(bitPattern: b.memory), b.byteCount)
        let f = Frame(adopting: b.memory, width: width, height: height, stride: width * 4) {
            munmap(UnsafeMutableRawPointer(bitPattern: address), bytes)
            Glibc.close(fd)
        }
        f.fill(background)
        pool.keep(f, fd)
        return (f, fd)
    }

    /// Waits for the reply `serial` for up to `seconds`: past it the process is killed and
    /// `stalled` thrown; a process that dies throws `.crashed`.
    private func awaitReply(serial: UInt32, seconds: Double, stalled: ShareSource.Failure) throws -> ShareDecoderWire.Reply {
        let deadline = MonotonicClock.now() + seconds
        while true {
            let left = deadline - MonotonicClock.now()
            if left <= 0 {
                close()
                throw stalled
            }
            var p = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let n = poll(&p, 1, Int32(min(left * 1000 + 1, 3_600_000)))
            if n < 0 && errno == EINTR { continue }
            if n == 0 { continue }
            guard let (bytes, fd) = SeqPacket.receive(socket, max: ShareDecoderWire.maxMessage) else { throw died() }
            if fd >= 0 { Glibc.close(fd) }
            guard let reply = try? ShareDecoderWire.decodeReply(bytes), reply.serial == serial else { continue }
            return reply
        }
    }

    /// The process is gone: reaped, and why said as a failure.
    private func died() -> ShareSource.Failure {
        var status: Int32 = 0
        let p = pid
        pid = 0
        if p > 0 {
            while waitpid(p, &status, 0) < 0 && errno == EINTR {}
        }
        close()
        let signal = status & 0x7F
        if p > 0, signal != 0 {
            let name = strsignal(signal).map { String(cString: $0) } ?? "signal \(signal)"
            return .crashed("the decoder process stopped on it: \(name), signal \(signal)")
        }
        return .crashed("the decoder process stopped on it (exit status \((status >> 8) & 0xFF))")
    }

    private func spawn() throws {
        guard let input else { throw ShareSource.Failure.crashed("no shared input") }
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw ShareSource.Failure.crashed("socketpair: \(String(cString: strerror(errno)))")
        }
        let (mine, theirs) = (fds[0], fds[1])
        // Both descriptors the process gets are first moved above 10, so that putting them
        // at 3 and 4 can't overwrite one with the other.
        let sock = fcntl(theirs, F_DUPFD_CLOEXEC, 10)
        let inputCopy = fcntl(input.fd, F_DUPFD_CLOEXEC, 10)
        Glibc.close(theirs)
        defer {
            if sock >= 0 { Glibc.close(sock) }
            if inputCopy >= 0 { Glibc.close(inputCopy) }
        }
        guard sock >= 0, inputCopy >= 0 else {
            Glibc.close(mine)
            throw ShareSource.Failure.crashed("out of descriptors for the decoder process")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, sock, ShareDecoderMain.socketDescriptor)
        posix_spawn_file_actions_adddup2(&actions, inputCopy, ShareDecoderMain.inputDescriptor)
        let args = [
            executable, "--share-decoder",
            "--share-memory-mb", String(limits.memoryBytes >> 20),
            "--share-cpu-seconds", String(limits.cpuSeconds),
            "--share-max-side", String(limits.maxSide),
            "--share-max-pixels", String(limits.maxPixels),
        ]
        var env = ProcessInfo.processInfo.environment
        env["MALLOC_ARENA_MAX"] = "1"   // one thread: one heap (each arena reserves 64 MiB of address space)
        // A crash ends the process at once: Swift's backtracer would first spend seconds
        // symbolicating (past the stall deadline), and the service's log says what happened.
        env["SWIFT_BACKTRACE"] = "enable=no"
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, nil, &argv, &envp)
        guard rc == 0 else {
            Glibc.close(mine)
            throw ShareSource.Failure.crashed("decoder process \(executable): \(String(cString: strerror(rc)))")
        }
        pid = child
        socket = mine
    }
}
