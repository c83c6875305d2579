import Foundation
import LecternModel
import LecternSystem
import LecternProtocol
import LecternRoom
import Synchronization

/// Makes the meeting record's PDF (§26) off the room's loop: in a record worker process
/// (`lecternd --record-worker`, confined like the render workers) when there is a lecternd
/// to run, under a wall-clock deadline; reports progress and then the PDF's bytes as room
/// events. The PDF is written to `<data_dir>/record.pdf.tmp`, opened and its name removed
/// at once: the room sends it from the open file a piece at a time (`RecordSender`), and
/// its space is freed when that is done. The record leaves the box only in the reply to
/// whoever asked.
final class RecordMaker: Sendable {
    /// The largest PDF sent (record-data's sizes are u32; a record past this is refused).
    static let maxPDFBytes = 256 << 20

    let executable: String?
    let dataDir: String
    let memoryMB: Int
    let cpuSeconds: Int
    private let queue = DispatchQueue(label: "lectern.record")

    init(executable: String?, dataDir: String, memoryMB: Int, cpuSeconds: Int) {
        self.executable = executable
        self.dataDir = dataDir
        self.memoryMB = memoryMB
        self.cpuSeconds = cpuSeconds
    }

    /// Seconds a record of `pages` pages may take: 30 s and 2 s a page, at most 10 minutes.
    static func deadline(pages: Int) -> Double { min(600, 30 + 2 * Double(pages)) }

    func make(
        _ job: RecordJob, for id: ConnectionID, tag: UInt16, paths: @escaping @Sendable (String) -> String,
        report: @escaping @Sendable (RoomEvent) -> Void
    ) {
        queue.async { [self] in
            var job = job
            // Only content ids name files (a saved record is read back from state.json).
            for c in job.contents where ContentStore.isValidID(c) { job.files[c] = paths(c) }
            let out = dataDir + "/record.pdf.tmp"
            defer { unlink(out) }
            let total = UInt16(clamping: job.pageCount)
            let progress: @Sendable (Int) -> Void = { done in
                report(.recordProgressed(id, tag: tag, RecordProgress(done: UInt16(clamping: done), total: total)))
            }
            let result: Result<RecordPDF, LecternError>
            do {
                if let executable {
                    try runWorker(executable, job, out: out, progress: progress)
                } else {
                    try RecordWorkerMain.draw(job, to: out, progress: progress)
                }
                result = .success(try readPDF(out))
            } catch let e as LecternError {
                result = .failure(e)
            } catch {
                result = .failure(.recordFailed("\(error)"))
            }
            report(.recordMade(id, tag: tag, result))
        }
    }

    /// The made PDF, open (never read here: `RecordSender` sends it a piece at a time).
    private func readPDF(_ path: String) throws -> RecordPDF {
        let file = try FileChunks(path: path, unlinking: true)
        guard file.size <= Self.maxPDFBytes else { throw LecternError.recordFailed("it would be larger than \(Self.maxPDFBytes >> 20) MB") }
        return RecordPDF(size: file.size, file: file)
    }

    private func runWorker(_ executable: String, _ job: RecordJob, out: String, progress: @escaping @Sendable (Int) -> Void) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = ["--record-worker", out, "--render-memory-mb", String(memoryMB), "--render-cpu-seconds", String(cpuSeconds)]
        // One heap, as the render workers have: under RLIMIT_AS, a second thread's malloc arena
        // (64 MiB of address space reserved at once) failed a record now and then (CI, 192 MB).
        var env = ProcessInfo.processInfo.environment
        env["MALLOC_ARENA_MAX"] = "1"
        p.environment = env
        let input = Pipe(), output = Pipe(), errors = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = errors
        try p.run()
        let deadline = MonotonicClock.now() + Self.deadline(pages: job.pageCount)
        // The job goes in on its own thread (a large one fills the pipe before the worker reads).
        let body = (try? JSONEncoder().encode(job)) ?? Data()
        Thread.detachNewThread {
            try? input.fileHandleForWriting.write(contentsOf: body)
            try? input.fileHandleForWriting.close()
        }
        let errorText = NIOLockedText()
        Thread.detachNewThread {
            let d = (try? errors.fileHandleForReading.readToEnd()) ?? Data()
            errorText.set(String(decoding: d.prefix(4096), as: UTF8.self))
        }
        // Progress lines until the worker closes its output; a watchdog ends it at the deadline.
        let watchdog = DispatchWorkItem { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + max(0, deadline - MonotonicClock.now()), execute: watchdog)
        var pending = Data()
        while let chunk = try? output.fileHandleForReading.read(upToCount: 4096), !chunk.isEmpty {
            pending.append(chunk)
            while let nl = pending.firstIndex(of: 10) {
                if let n = Int(String(decoding: pending[pending.startIndex..<nl], as: UTF8.self)) { progress(n) }
                pending = Data(pending[(nl + 1)...])
            }
        }
        p.waitUntilExit()
        watchdog.cancel()
        guard p.terminationReason == .exit, p.terminationStatus == 0 else {
            if MonotonicClock.now() >= deadline { throw LecternError.recordFailed("it took longer than \(Int(Self.deadline(pages: job.pageCount))) s") }
            if p.terminationReason == .uncaughtSignal {
                throw LecternError.recordFailed("a page needed more than the appliance allows (\(memoryMB) MB, \(cpuSeconds) s a page)")
            }
            let why = errorText.get().split(separator: "\n").last.map(String.init) ?? "the record worker failed"
            throw LecternError.recordFailed(why)
        }
    }
}

/// Text one thread writes and another reads.
private final class NIOLockedText: Sendable {
    private let text = Mutex("")
    func set(_ s: String) { text.withLock { $0 = s } }
    func get() -> String { text.withLock { $0 } }
}
