import Foundation
import Glibc
import LecternModel
import LecternSystem
import LecternRender

/// What the service (at upload, and once at start for files stored before) and `lectern
/// render` need of a PDF before anything opens it in their own process — its page count,
/// labels, the notes layout the service picks (§20.3) and its text annotations — read in a
/// child process (`lecternd --probe-deck FILE` or `lectern --probe-deck FILE`) under two
/// budgets (docs/protocol.md §12.1): opening the file (`openMemoryMB` of address space and
/// `openCPUSeconds`), then reading its pages' facts (`readMemoryMB`, `readCPUSeconds`).
/// Opening a hostile file can take poppler gigabytes (a 488-byte cross-reference table
/// claiming 33 million objects: 1.3 GB, and an abort when refused) or minutes, which must
/// cost the child, not the service.
public enum DeckProbe {
    /// The version of the check a stored file passed (`ContentStore.Item.openChecked`): a
    /// file checked by an older one is checked again at start.
    public static let rule = 1

    public struct Facts: Codable, Equatable, Sendable {
        public var pageCount: Int
        /// One label per page (at most 64 bytes each; the page number where there is none).
        public var labels: [String]
        /// The notes layout detected from the pages' shapes and the document's marks.
        public var layout: NotesLayout
        /// Page → its text annotations joined by blank lines (bounded, see `Limits`).
        public var annotations: [Int: String]
    }

    public struct Limits: Equatable, Sendable {
        /// Address space opening may add, MB, and processor time it may take, seconds.
        public var openMemoryMB = 128
        public var openCPUSeconds = 2
        /// Then for reading every page's size, label and annotations (the render worker's).
        public var readMemoryMB = 192
        public var readCPUSeconds = 10
        /// Each annotation cut at this many characters; a deck's together at most this many bytes.
        public var noteCharacters = 4096
        public var deckNotesBytes = 512 * 1024
        public init() {}
        /// Wall-clock time the child may take in all (a loaded machine: twice its CPU time, and its start).
        public var wallSeconds: Double { Double(2 * (openCPUSeconds + readCPUSeconds) + 5) }
        /// The most the child may print (its facts): more is refused as damaged.
        public static let maxReport = 8 << 20
    }

    /// Why a file was refused for what reading it costs (the reason of `ContentError.unreadable`).
    public static func openingReason(_ l: Limits) -> String {
        "opening it needs more than the \(l.openMemoryMB) MB of memory or \(l.openCPUSeconds) s of processor time a file may take to open"
    }
    public static func readingReason(_ l: Limits) -> String {
        "reading its pages' sizes, labels and notes needs more than the \(l.readMemoryMB) MB of memory or \(l.readCPUSeconds) s of processor time a file may take"
    }

    /// Reads `path` in a child (`executable --probe-deck`), `name` naming it in errors.
    /// Throws `ContentError` (`.unreadable` with `openingReason`/`readingReason` when the
    /// child went past a budget or was killed by one).
    public static func facts(of path: String, name: String, executable: String, limits: Limits) throws -> Facts {
        // A refusal while opening is checked once more in a new child before it stands (as
        // a page refused by a worker is, §10): one child's bad luck (a loaded machine) must
        // not refuse a good file; a file that really costs too much is refused twice, fast.
        do {
            return try probe(path, name: name, executable: executable, limits: limits)
        } catch ContentError.unreadable(_, let reason) where reason == openingReason(limits) {
            return try probe(path, name: name, executable: executable, limits: limits)
        }
    }

    private static func probe(_ path: String, name: String, executable: String, limits: Limits) throws -> Facts {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: executable)
        child.arguments = [
            "--probe-deck", path, "--open-memory-mb", String(limits.openMemoryMB), "--open-cpu-seconds", String(limits.openCPUSeconds),
            "--render-memory-mb", String(limits.readMemoryMB), "--render-cpu-seconds", String(limits.readCPUSeconds),
            "--note-characters", String(limits.noteCharacters), "--notes-bytes", String(limits.deckNotesBytes),
        ]
        // One malloc arena: a second one reserves 64 MB of address space at once, which
        // would be counted against the opening budget whichever thread first needed it.
        var environment = ProcessInfo.processInfo.environment
        environment["MALLOC_ARENA_MAX"] = "1"
        child.environment = environment
        let out = Pipe()
        child.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        child.standardOutput = out
        child.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try child.run()
        try? out.fileHandleForWriting.close()
        let (text, complete) = readReport(out.fileHandleForReading.fileDescriptor, until: MonotonicClock.now() + limits.wallSeconds)
        try? out.fileHandleForReading.close()
        // Past the deadline, or printing more than a report: stopped (a child that closed
        // its output is exiting by itself).
        if !complete { kill(child.processIdentifier, SIGKILL) }
        child.waitUntilExit()
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if child.terminationReason == .exit, child.terminationStatus == 0, lines.count >= 3, lines[1] == "reading",
            let report = try? JSONDecoder().decode(Report.self, from: Data(lines[2].utf8))
        {
            if let facts = report.facts { return facts }
            throw report.error(name: name)
        }
        if lines.count >= 2, lines[0] == "opening", lines[1] == "reading" {
            throw ContentError.unreadable(path: name, reason: readingReason(limits))
        }
        if lines.first == "opening" {
            throw ContentError.unreadable(path: name, reason: openingReason(limits))
        }
        throw ContentError.damaged(
            detail: "the check that opens it did not run (\(child.terminationReason == .exit ? "exit \(child.terminationStatus)" : "signal \(child.terminationStatus)"))")
    }

    /// The child's output until it closes (complete) or `deadline`, at most
    /// `Limits.maxReport` bytes (not complete).
    private static func readReport(_ fd: Int32, until deadline: Double) -> (String, complete: Bool) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var complete = false
        while bytes.count <= Limits.maxReport {
            let left = deadline - MonotonicClock.now()
            if left <= 0 { break }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&p, 1, Int32(min(left * 1000 + 1, 1000)))
            if r <= 0 { continue }   // EINTR, or no output yet
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0, errno == EINTR || errno == EAGAIN { continue }
            if n <= 0 {
                complete = true
                break
            }
            bytes += buffer[0..<n]
        }
        return (String(decoding: bytes, as: UTF8.self), complete)
    }

    /// The child's answer: the facts, or why the file can't be shown.
    struct Report: Codable {
        var facts: Facts?
        var code: String?
        var detail: String?

        func error(name: String) -> ContentError {
            switch code {
            case "empty": return .empty
            case "not-a-pdf": return .notAPDF
            case "password-protected": return .passwordProtected
            case "no-pages": return .noPages
            case "unreadable": return .unreadable(path: name, reason: detail ?? "can't open")
            default: return .damaged(detail: detail ?? "unknown")
            }
        }

        init(facts: Facts) { self.facts = facts }
        init(_ e: ContentError) {
            code = e.code
            switch e {
            case .damaged(let d): detail = d
            case .unreadable(_, let r): detail = r
            default: detail = e.description
            }
        }
    }

    /// The facts of an opened document (in the child; in-process only where there is no
    /// executable to run the child, e.g. a bench).
    public static func readFacts(_ doc: PDFDocument, noteCharacters: Int = 4096, deckNotesBytes: Int = 512 * 1024) -> Facts {
        var labels: [String] = []
        var shapes: [SourceShape] = []
        var annotations: [Int: String] = [:]
        var annotationBytes = 0
        for p in 1...max(1, doc.pageCount) where p <= doc.pageCount {
            labels.append((try? doc.label(page: p)) ?? String(p))
            if let s = try? doc.shape(page: p) { shapes.append(s) }
            let texts = (try? doc.textAnnotations(page: p, maxCharacters: noteCharacters)) ?? []
            let text = texts.joined(separator: "\n\n")
            if !text.isEmpty, annotationBytes + text.utf8.count <= deckNotesBytes {
                annotations[p] = text
                annotationBytes += text.utf8.count
            }
        }
        return Facts(
            pageCount: doc.pageCount, labels: labels, layout: NotesLayout.detect(shapes, evidence: doc.notesEvidence(shapes: shapes)),
            annotations: annotations)
    }

    /// The child's side (`--probe-deck FILE`): never returns when asked for. Prints
    /// "opening", opens the file within the opening budget, prints "reading", reads the
    /// facts within the reading budget, prints them as one JSON line.
    public static func runIfAsked(_ arguments: [String]) {
        guard arguments.count > 2, arguments[1] == "--probe-deck" else { return }
        func value(_ name: String, _ fallback: Int) -> Int {
            guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let v = Int(arguments[i + 1]) else { return fallback }
            return v
        }
        let d = Limits()
        let openMB = value("--open-memory-mb", d.openMemoryMB), readMB = value("--render-memory-mb", d.readMemoryMB)
        // The hard limit is the larger (reading); opening runs under a lower soft one.
        RenderWorkerMain.confine(keeping: 2, memoryMB: max(openMB, readMB), what: "deck probe")
        func say(_ line: String) {
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        }
        let report: Report
        say("opening")
        setSoftAddressSpace(RenderWorkerMain.addressSpace() + (openMB << 20))
        RenderWorkerMain.allowCPU(seconds: value("--open-cpu-seconds", d.openCPUSeconds))
        do {
            let doc = try PDFDocument(path: arguments[2])
            setSoftAddressSpace(nil)
            RenderWorkerMain.allowCPU(seconds: value("--render-cpu-seconds", d.readCPUSeconds))
            say("reading")
            report = Report(
                facts: readFacts(doc, noteCharacters: value("--note-characters", d.noteCharacters), deckNotesBytes: value("--notes-bytes", d.deckNotesBytes)))
        } catch let e as ContentError {
            say("reading")
            report = Report(e)
        } catch {
            say("reading")
            report = Report(.damaged(detail: "\(error)"))
        }
        say(String(decoding: (try? JSONEncoder().encode(report)) ?? Data(), as: UTF8.self))
        exit(0)
    }

    /// RLIMIT_AS's soft limit: `bytes`, or back up to the hard limit (nil).
    private static func setSoftAddressSpace(_ bytes: Int?) {
        var r = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &r)
        r.rlim_cur = bytes.map { min(rlim_t($0), r.rlim_max) } ?? r.rlim_max
        _ = setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &r)
    }
}
