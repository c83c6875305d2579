import Foundation
import Synchronization

/// One way of turning a stored upload into a PDF deck (docs/protocol.md §30): office
/// documents through LibreOffice in a sandbox (`OfficeConverter`), images, … A converter
/// plugs in with one row in `DeckConverters` (the table the service builds): it says
/// which files are its own by their content (`detect`), whether it can run here
/// (`unavailable`), and converts one file at a time on a thread the service gives it.
///
/// The room decides when a conversion starts and when it is stopped (the queue and the
/// wall-clock budget are `ConversionQueue`'s, in LecternRoom); a converter only converts,
/// reports progress, and stops promptly when `stop` fires (killing whatever it runs).
public protocol DeckConverter: Sendable {
    /// For logs and the config ("office", "image").
    var name: String { get }
    /// The format of the file if it is one this converter takes, by its content; else nil.
    func detect(_ file: FileSniff) -> SourceFormat?
    /// nil when it can convert here; else what is missing, for people ("LibreOffice is not
    /// installed", "turned off in the config").
    var unavailable: String? { get }
    /// Converts `job.input` into a PDF at `job.output` within `job.limits`, calling
    /// `progress(done, total)` as pages are done (total 0: not known yet). Throws a
    /// `ConversionFailure` saying why not; `.stopped` once `stop` fired.
    func convert(_ job: ConversionJob, progress: @escaping @Sendable (Int, Int) -> Void, stop: ConversionStop) throws(ConversionFailure) -> ConvertedDeck
    /// Whether a file of this name is likely one of its own: a hint to get ready while the
    /// upload's bytes arrive (what the file is, is decided by its content once stored).
    func likely(fileName: String) -> Bool
    /// Starts what makes the next conversion quick (a warm converter), when an upload that
    /// is likely its own begins. Does nothing by default.
    func prepare()
    /// Stops everything it keeps running (the service is stopping).
    func shutdown()
}

extension DeckConverter {
    public func likely(fileName: String) -> Bool { false }
    public func prepare() {}
    public func shutdown() {}
}

/// The limits of one conversion (the `[convert]` section of the config).
public struct ConversionLimits: Equatable, Sendable {
    /// Memory the converter may use (its data segment, RLIMIT_DATA), MB.
    public var memoryMB: Int
    /// Pages the PDF may have.
    public var maxPages: Int
    /// What a zipped document may unpack to, bytes.
    public var maxUnpackedBytes: UInt64
    /// Processor seconds (RLIMIT_CPU), a backstop behind the room's wall-clock budget.
    public var cpuSeconds: Int
    /// The wall-clock budget the room enforces (for the converter's own hard stop).
    public var budgetSeconds: Int
    public init(memoryMB: Int = 1024, maxPages: Int = 500, maxUnpackedBytes: UInt64 = 500_000_000, cpuSeconds: Int = 120, budgetSeconds: Int = 60) {
        self.memoryMB = memoryMB
        self.maxPages = maxPages
        self.maxUnpackedBytes = maxUnpackedBytes
        self.cpuSeconds = cpuSeconds
        self.budgetSeconds = budgetSeconds
    }
}

/// One conversion: the stored original, where the PDF goes, a fresh directory of its own.
public struct ConversionJob: Sendable {
    /// The original as uploaded (read it; never change it).
    public var input: String
    /// Where the PDF must be when `convert` returns.
    public var output: String
    /// An empty directory for this conversion alone (removed afterwards).
    public var workDirectory: String
    /// The file name given at upload (for logs and messages).
    public var name: String
    public var format: SourceFormat
    public var limits: ConversionLimits
    /// Where the document's first page goes as a PDF of its own, ahead of the whole (nil:
    /// not wanted). A converter that can make it does, and says so through `made`; one
    /// that can't ignores it (the whole PDF is then waited for, docs/protocol.md §30.8).
    public var firstPage: FirstPageRequest?
    public init(
        input: String, output: String, workDirectory: String, name: String, format: SourceFormat, limits: ConversionLimits,
        firstPage: FirstPageRequest? = nil
    ) {
        self.input = input
        self.output = output
        self.workDirectory = workDirectory
        self.name = name
        self.format = format
        self.limits = limits
        self.firstPage = firstPage
    }
}

/// The first page wanted ahead of the whole deck (docs/protocol.md §30.8): a complete PDF
/// of that page alone at `path`, out of the converter's reach once `made` is called (it
/// is checked and shown while the converter goes on with the rest).
public struct FirstPageRequest: Sendable {
    public var path: String
    /// Called once, on the converter's thread, when the page is at `path`.
    public var made: @Sendable (FirstPageMade) -> Void
    public init(path: String, made: @escaping @Sendable (FirstPageMade) -> Void) {
        self.path = path
        self.made = made
    }
}

/// What a converter knows when the first page is made.
public struct FirstPageMade: Equatable, Sendable {
    /// Pages the whole deck will have (0: not known yet, as for a spreadsheet).
    public var pagesInAll: Int
    /// The document's speaker notes, by page (1-based): known once it is loaded.
    public var notes: [Int: String]
    public init(pagesInAll: Int, notes: [Int: String] = [:]) {
        self.pagesInAll = pagesInAll
        self.notes = notes
    }
}

/// What a conversion made besides the PDF.
public struct ConvertedDeck: Equatable, Sendable {
    public var pages: Int
    /// Speaker notes from the document, by page (1-based); empty: none.
    public var notes: [Int: String]
    public init(pages: Int, notes: [Int: String] = [:]) {
        self.pages = pages
        self.notes = notes
    }
}

/// Why a conversion made no PDF.
public enum ConversionFailure: Error, Equatable, Sendable {
    /// The converter can't read the file (damaged, password, not what it seemed): why, for people.
    case unreadable(String)
    /// Its parts unpack to more than `maxUnpackedBytes`.
    case tooLarge(UInt64)
    /// More pages than `maxPages`.
    case tooManyPages(Int)
    /// Past the memory limit (MB).
    case outOfMemory(Int)
    /// Past the processor-time limit or the converter's own hard stop (seconds).
    case timedOut(Int)
    /// `stop` fired: the room stopped it (its reason is the room's).
    case stopped
    /// The converter can't run here (why).
    case unavailable(String)
    /// The converter's own refusal, with its own error code (its range of §15), detail and
    /// message for people: a photo's megapixels or memory (§30.9).
    case refused(code: UInt16, detail: UInt64, message: String)
}

/// Fired by the service when the room stops a conversion (its budget ran out, it was
/// cancelled): the converter's handlers kill what it runs. Thread-safe.
public final class ConversionStop: Sendable {
    private let state = Mutex<(stopped: Bool, handlers: [@Sendable () -> Void])>((false, []))
    public init() {}

    public var isStopped: Bool { state.withLock { $0.stopped } }

    /// Runs `handler` when stopped (at once if it already is).
    public func onStop(_ handler: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            if s.stopped { return true }
            s.handlers.append(handler)
            return false
        }
        if now { handler() }
    }

    public func stop() {
        let handlers = state.withLock { s -> [@Sendable () -> Void] in
            guard !s.stopped else { return [] }
            s.stopped = true
            defer { s.handlers = [] }
            return s.handlers
        }
        for h in handlers { h() }
    }
}
