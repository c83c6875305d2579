import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Office documents (`OfficeFormats`) converted to PDF by LibreOffice headless, each in a
/// bubblewrap sandbox of its own (`OfficeSandbox`): no network, a fresh user profile, a
/// file system holding only its input and output, macros and links off, rlimits on memory
/// and processor time, killed with its whole process tree when the room stops it.
public final class OfficeConverter: DeckConverter {
    public struct Tools: Sendable {
        /// LibreOffice's program (`soffice.bin`, started directly: no shell script).
        public var soffice: String
        /// bubblewrap.
        public var bwrap: String
        /// Python 3 with LibreOffice's UNO bridge (python3-uno): the driver in the sandbox.
        public var python: String
        /// util-linux's prlimit: the sandbox's rlimits.
        public var prlimit: String
        public init(
            soffice: String = "/usr/lib/libreoffice/program/soffice.bin", bwrap: String = "/usr/bin/bwrap", python: String = "/usr/bin/python3",
            prlimit: String = "/usr/bin/prlimit"
        ) {
            self.soffice = soffice
            self.bwrap = bwrap
            self.python = python
            self.prlimit = prlimit
        }
        /// What is missing here, for people (nil: all there).
        public var missing: String? {
            let fm = FileManager.default
            if !fm.isExecutableFile(atPath: soffice) { return "LibreOffice is not installed (\(soffice))" }
            if !fm.isExecutableFile(atPath: bwrap) { return "bubblewrap, the sandbox, is not installed (\(bwrap))" }
            if !fm.isExecutableFile(atPath: prlimit) { return "prlimit (util-linux) is missing (\(prlimit))" }
            if !fm.isExecutableFile(atPath: python) || !fm.fileExists(atPath: "/usr/lib/python3/dist-packages/uno.py") {
                return "LibreOffice's Python bridge is not installed (python3-uno)"
            }
            return nil
        }
    }

    public let name = "office"
    public let tools: Tools
    /// Turned on in the config (`[convert] office`).
    public let enabled: Bool
    public let unavailable: String?
    /// Where the sandboxes' directories are made (emptied at start).
    public let root: String
    /// Each sandbox's limits (a warm one is started before its document is known).
    public let limits: ConversionLimits
    /// Keep one sandbox started ahead, LibreOffice up in it, for the next document.
    public let warm: Bool
    private let spare = Mutex<Started?>(nil)
    private let counter = Mutex<Int>(0)

    /// A sandbox started, LibreOffice coming up in it.
    struct Started: Sendable {
        let sandbox: OfficeSandbox
        let process: SandboxProcess
        let startedAt: Double
    }

    public init(enabled: Bool = true, root: String, limits: ConversionLimits = ConversionLimits(), warm: Bool = true, tools: Tools = Tools()) {
        self.enabled = enabled
        self.tools = tools
        self.root = root
        self.limits = limits
        self.warm = warm
        try? FileManager.default.createDirectory(atPath: (root as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        unavailable =
            enabled
            ? tools.missing ?? OfficeSandbox.problem(tools: tools, scratch: root + ".probe")
            : "office documents are turned off in the config ([convert] office = false)"
        try? FileManager.default.removeItem(atPath: root)
    }

    public func detect(_ file: FileSniff) -> SourceFormat? { OfficeFormats.detect(file) }

    public func likely(fileName: String) -> Bool {
        let ext = FileSniff(head: [], size: 0, name: fileName).nameExtension
        return OfficeFormats.all.contains { $0.id == ext } || ["ppsx", "pps", "pot", "potx", "dot", "dotx"].contains(ext)
    }

    /// A warm sandbox nobody used for this long is let go of (its LibreOffice holds memory).
    public static let idleSeconds = 600.0

    /// Starts the warm sandbox when there is none (off the caller's thread, after `delay` s).
    public func prepare() { prepare(after: 0) }

    func prepare(after delay: Double) {
        guard warm, unavailable == nil else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in warmUp() }
    }

    private func warmUp() {
        guard spare.withLock({ $0 == nil }) else { return }
        let started = try? start()
        let extra = spare.withLock { s -> Started? in
            if s == nil {
                s = started
                return nil
            }
            return started
        }
        if let extra { end(extra) }
        // Let go of it if still unused after a while.
        if let started {
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.idleSeconds) { [self] in
                let idle = spare.withLock { s -> Started? in
                    guard let current = s, current.sandbox.directory == started.sandbox.directory else { return nil }
                    s = nil
                    return current
                }
                if let idle { end(idle) }
            }
        }
    }

    public func shutdown() {
        if let s = spare.withLock({ s -> Started? in
            defer { s = nil }; return s
        }) {
            end(s)
        }
    }

    public func convert(_ job: ConversionJob, progress: @escaping @Sendable (Int, Int) -> Void, stop: ConversionStop) throws(ConversionFailure) -> ConvertedDeck {
        if let why = unavailable { throw .unavailable(why) }
        // The warm one if it is there (taken: it converts this document only), else a new one.
        let taken = spare.withLock { s -> Started? in
            defer { s = nil }; return s
        }
        let started: Started
        if let taken {
            started = taken
        } else {
            do { started = try start() } catch { throw .unavailable("the sandbox can't start (\(error))") }
        }
        defer {
            end(started)
            prepare(after: 3)   // the next one warms once this deck is on its way to the wall
        }
        stop.onStop { started.process.kill() }
        do {
            return try run(job, in: started, progress: progress, stop: stop)
        } catch {
            if error != .stopped { FileHandle.standardError.write(Data("office converter: \(error); the sandbox said: \(Self.lastErrors(started))\n".utf8)) }
            throw error
        }
    }

    private func run(_ job: ConversionJob, in started: Started, progress: @escaping @Sendable (Int, Int) -> Void, stop: ConversionStop) throws(ConversionFailure) -> ConvertedDeck {
        let box = started.sandbox
        let input = box.inputDirectory + "/input"
        if link(job.input, input) != 0 {
            do { try FileManager.default.copyItem(atPath: job.input, toPath: input) } catch { throw .unavailable("the document can't be handed to the sandbox") }
        }
        var reader = LineReader()
        let t0 = LineReader.now()
        // LibreOffice up (a warm one already is), then the document within its budget; the
        // room stops it at its budget, this is the converter's own hard stop behind that.
        let ready = started.process.readLine(reader: &reader, until: t0 + 90)
        if stop.isStopped { throw .stopped }
        guard ready == "ready" else { throw .unavailable("LibreOffice didn't start in its sandbox") }
        var request: [String: Any] = [
            "input": OfficeSandbox.inside.input + "input", "output": OfficeSandbox.inside.output + "deck.pdf", "notes": OfficeSandbox.inside.output + "notes.json",
            "maxPages": limits.maxPages, "maxUnpacked": limits.maxUnpackedBytes,
        ]
        if job.firstPage != nil { request["first"] = OfficeSandbox.inside.output + "first.pdf" }
        guard let json = try? JSONSerialization.data(withJSONObject: request), started.process.send(String(decoding: json, as: UTF8.self)) else {
            throw .unavailable("the sandbox stopped")
        }
        let deadline = LineReader.now() + Double(job.limits.budgetSeconds) + 15
        var tookFirst = false
        while true {
            guard let line = started.process.readLine(reader: &reader, until: deadline) else {
                if stop.isStopped { throw .stopped }
                if LineReader.now() >= deadline { throw .timedOut(job.limits.budgetSeconds) }
                throw .unreadable("LibreOffice stopped while converting it")
            }
            let words = line.split(separator: " ", maxSplits: 2).map(String.init)
            switch words.first {
            case "progress":
                if words.count == 3, let done = Int(words[1]), let total = Int(words[2]) { progress(done, total) }
            case "first":
                // Page 1 alone: copied out of the sandbox's reach (it goes on with the rest),
                // then checked and shown by the service. One that can't be taken is let go
                // of: the whole deck is waited for.
                guard let early = job.firstPage, !tookFirst else { continue }
                tookFirst = true
                let pages = words.count > 1 ? Int(words[1]) ?? 0 : 0
                do {
                    try SandboxOutput.take(box.outputDirectory + "/first.pdf", to: early.path, limit: OfficeSandbox.maxFileBytes)
                    early.made(FirstPageMade(pagesInAll: max(0, pages), notes: Self.notes(box.outputDirectory + "/notes.json")))
                } catch {
                    FileHandle.standardError.write(Data("office converter: page 1 alone not taken (\(error)); the whole deck is waited for\n".utf8))
                }
            case "done":
                let pages = words.count > 1 ? Int(words[1]) ?? 0 : 0
                // The sandbox is still there: its PDF is copied out, never renamed (it could be
                // a link to a file of the host, or still open in there).
                do {
                    try SandboxOutput.take(box.outputDirectory + "/deck.pdf", to: job.output, limit: OfficeSandbox.maxFileBytes)
                } catch {
                    throw .unreadable("LibreOffice made no PDF of it")
                }
                if pages > 0 { progress(pages, pages) }
                return ConvertedDeck(pages: pages, notes: Self.notes(box.outputDirectory + "/notes.json"))
            case "error":
                let kind = words.count > 1 ? words[1] : "", message = words.count > 2 ? words[2] : ""
                switch kind {
                case "tooLarge": throw .tooLarge(limits.maxUnpackedBytes)
                case "tooManyPages": throw .tooManyPages(limits.maxPages)
                case "outOfMemory": throw .outOfMemory(limits.memoryMB)
                default: throw .unreadable(message.isEmpty ? "LibreOffice can't read it" : message)
                }
            default: continue
            }
        }
    }

    /// The speaker notes the driver wrote (page → text), read within a bound (a link or
    /// anything but a plain file the sandbox left there is not read).
    static func notes(_ path: String) -> [Int: String] {
        guard let data = SandboxOutput.contents(path, limit: 2 << 20),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: String]
        else { return [:] }
        var out: [Int: String] = [:]
        for (k, v) in object { if let page = Int(k) { out[page] = v } }
        return out
    }

    private func start() throws -> Started {
        let n = counter.withLock { c -> Int in
            c += 1
            return c
        }
        let box = OfficeSandbox(directory: root + "/sandbox-\(n)", tools: tools, limits: limits)
        try box.prepare()
        let process = try SandboxSpawner.shared.spawn(box.arguments, errors: box.directory + ".err")
        return Started(sandbox: box, process: process, startedAt: LineReader.now())
    }

    /// Kills the sandbox's processes and removes its directory.
    private func end(_ s: Started) {
        s.process.kill()
        s.process.reap()
        try? FileManager.default.removeItem(atPath: s.sandbox.directory)
        try? FileManager.default.removeItem(atPath: s.sandbox.directory + ".err")
    }

    /// The last lines the sandbox wrote on its standard error (for the log of a failure).
    static func lastErrors(_ s: Started) -> String {
        guard let h = FileHandle(forReadingAtPath: s.sandbox.directory + ".err") else { return "" }
        defer { try? h.close() }
        let end = (try? h.seekToEnd()) ?? 0
        try? h.seek(toOffset: end > 2000 ? end - 2000 : 0)
        return String(decoding: (try? h.readToEnd()) ?? Data(), as: UTF8.self)
    }
}
