import Foundation
import Glibc
import Synchronization
import LecternConvert
import LecternModel
import LecternSystem

/// Photos and images made into one deck (docs/protocol.md §30.9): a PDF with a page per
/// image, in the order given, each page of its picture's aspect, made by a bounded child
/// (`PhotoDeckChild`: `lecternd --photo-deck`) so that a 48-megapixel photo or a
/// decompression bomb costs the child, never the service. From then on it is a deck like
/// any other.
public enum PhotoDeck {
    /// A photo's page embeds its picture as a JPEG of this quality.
    public static let jpegQuality = 90

    /// Why images were not made into a deck; `index` is the image (from 1) it is about.
    public enum Failure: Error, Equatable, Sendable {
        /// No decoder the appliance allows reads it.
        case notAnImage(index: Int)
        /// Its header claims more pixels than `maxMegapixels` (the message says how many).
        case tooManyPixels(index: Int, reason: String)
        /// Decoding it went past the child's memory or time (`PhotoLimits.overBudget`).
        case overBudget(index: Int, reason: String)
        /// Its decoder failed on it.
        case damaged(index: Int, detail: String)
        /// More images than `maxImages`.
        case tooManyImages(count: Int, limit: Int)
        /// Stopped from outside (`stop` fired): the child was killed.
        case stopped

        public var index: Int {
            switch self {
            case .notAnImage(let i), .tooManyPixels(let i, _), .overBudget(let i, _), .damaged(let i, _): return i
            case .tooManyImages, .stopped: return 0
            }
        }
    }

    /// What the child reports on its last line.
    public struct Report: Codable, Equatable, Sendable {
        public struct Problem: Codable, Equatable, Sendable {
            public enum Code: String, Codable, Sendable { case notAnImage = "not-an-image", tooManyPixels = "too-many-pixels", overBudget = "over-budget", damaged }
            public var index: Int
            public var code: Code
            public var detail: String
        }
        public var pages = 0
        public var failure: Problem?
        /// The child's peak resident memory, kB.
        public var peakKB = 0

        init(pages: Int) { self.pages = pages }
        init(failure: Problem) { self.failure = failure }
    }

    /// What came out: the deck's pages and what the child used.
    public struct Made: Equatable, Sendable {
        public var pages: Int
        public var childPeakBytes: Int
    }

    /// Makes `inputs` (paths, in order) into the PDF `output` in a child (`executable
    /// --photo-deck`) under `limits`; `progress(n)` is called as image `n` (from 1) starts.
    /// `stop` kills the child. Throws `Failure`; `output` is removed unless it is complete.
    public static func make(
        _ inputs: [String], into output: String, executable: String, limits: PhotoLimits = PhotoLimits(), stop: ConversionStop? = nil,
        progress: (Int) -> Void = { _ in }
    ) throws -> Made {
        if inputs.count > limits.maxImages { throw Failure.tooManyImages(count: inputs.count, limit: limits.maxImages) }
        var complete = false
        defer { if !complete { unlink(output) } }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: executable)
        child.arguments = PhotoDeckChild.arguments(output: output, inputs: inputs, limits: limits, quality: jpegQuality)
        // One malloc arena: a second one reserves 64 MB of address space at once.
        var environment = ProcessInfo.processInfo.environment
        environment["MALLOC_ARENA_MAX"] = "1"
        environment["VIPS_WARNING"] = "0"
        child.environment = environment
        let out = Pipe()
        child.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        child.standardOutput = out
        child.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try child.run()
        try? out.fileHandleForWriting.close()
        // Killed when stopped, but only while not yet reaped (its pid is never another's).
        let pid = child.processIdentifier
        let running = Mutex(true)
        stop?.onStop { running.withLock { if $0 { kill(pid, SIGKILL) } } }
        var lines = ChildLines()
        let deadline = MonotonicClock.now() + limits.wallSeconds(images: inputs.count)
        let closed = lines.read(out.fileHandleForReading.fileDescriptor, until: deadline) { line in
            if line.hasPrefix("image "), let n = Int(line.dropFirst(6)) { progress(n) }
        }
        try? out.fileHandleForReading.close()
        running.withLock {
            $0 = false
            if !closed { kill(pid, SIGKILL) }
        }
        child.waitUntilExit()
        if stop?.isStopped == true { throw Failure.stopped }
        if child.terminationReason == .exit, child.terminationStatus == 0, let last = lines.all.last,
            let report = try? JSONDecoder().decode(Report.self, from: Data(last.utf8))
        {
            if let p = report.failure {
                switch p.code {
                case .notAnImage: throw Failure.notAnImage(index: p.index)
                case .tooManyPixels: throw Failure.tooManyPixels(index: p.index, reason: p.detail)
                case .overBudget: throw Failure.overBudget(index: p.index, reason: limits.overBudget)
                case .damaged: throw Failure.damaged(index: p.index, detail: p.detail)
                }
            }
            complete = true
            return Made(pages: report.pages, childPeakBytes: report.peakKB << 10)
        }
        // Killed by a limit (or the deadline) while on an image: that image cost too much.
        let on = lines.all.compactMap { l -> Int? in l.hasPrefix("image ") ? Int(l.dropFirst(6)) : nil }.last ?? 1
        throw Failure.overBudget(index: on, reason: limits.overBudget)
    }
}

/// The lines a child prints, read until it closes its output or a deadline passes, at most
/// 1 MiB (more is not a report).
struct ChildLines {
    private(set) var all: [String] = []
    private var partial: [UInt8] = []
    private var total = 0

    /// Reads `fd`, calling `each` for each complete line; true when the child closed it.
    mutating func read(_ fd: Int32, until deadline: Double, each: (String) -> Void) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while total <= 1 << 20 {
            let left = deadline - MonotonicClock.now()
            if left <= 0 { return false }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, Int32(min(left * 1000 + 1, 1000))) <= 0 { continue }
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0, errno == EINTR || errno == EAGAIN { continue }
            if n <= 0 {
                if !partial.isEmpty { all.append(String(decoding: partial, as: UTF8.self)) }
                return true
            }
            total += n
            for b in buffer[0..<n] {
                if b == 10 {
                    let line = String(decoding: partial, as: UTF8.self)
                    partial.removeAll(keepingCapacity: true)
                    all.append(line)
                    each(line)
                } else {
                    partial.append(b)
                }
            }
        }
        return false
    }
}
