import Crypto
import Foundation
import LecternModel
import LecternSystem
import LecternPipeline
import LecternProtocol
import LecternRender
import LecternRoom
import LecternVideo
import Logging
import Synchronization

/// Uploaded files, content-addressed under `<data_dir>/content/`: a file is stored as
/// `<sha256>` with a `<sha256>.json` description beside it. Writes are atomic (temp file,
/// fsync, rename), so a crash never leaves half a file under a content id.
public final class ContentStore: Sendable {
    public struct Item: Codable, Equatable, Sendable {
        public var id: String
        public var name: String
        /// In the `.json` file: "pdf" or "clip".
        public var kind: ContentKind
        public var size: Int64
        /// Pages of a PDF; 0 for a clip.
        public var pages: Int
        /// Device name of the uploader ("" for files the service added itself).
        public var uploader: String
        /// Length of a clip in milliseconds; nil for a PDF, and in `.json` files written
        /// before the duration was kept (they still load).
        public var durationMs: UInt32? = nil
        /// A PDF's page labels, beamer layout and annotations (nil: stored before they were kept).
        public var deck: DeckFacts? = nil
        /// The `DeckProbe.rule` the PDF was checked by in a child before anything opened it
        /// in the service (nil: stored before, or without a lecternd to run the check).
        public var openChecked: Int? = nil
        /// A converted deck (docs/protocol.md §30): the original's format ("pptx"). The
        /// original stays under the id (the SHA-256 the client hashed), its PDF beside it
        /// as `<id>.pdf`; `pages`, `deck` and `openChecked` describe the PDF.
        public var convertedFrom: String? = nil
        /// Bytes of the converted PDF; nil while it doesn't exist yet (converting, or a
        /// restart came first: it is converted again).
        public var convertedSize: Int64? = nil
        public var awaitsConversion: Bool { convertedFrom != nil && convertedSize == nil }
    }

    /// Where a PDF is checked before the service opens it: `lecternd --probe-deck` under
    /// `limits` (docs/protocol.md §12.1); without an executable (a bench) in-process.
    public struct Probe: Sendable {
        public var executable: String?
        public var limits: DeckProbe.Limits
        public init(executable: String?, limits: DeckProbe.Limits = DeckProbe.Limits()) {
            self.executable = executable
            self.limits = limits
            self.limits.noteCharacters = ConsoleLimits.maxNoteBytes / 4
            self.limits.deckNotesBytes = ConsoleLimits.maxDeckNotesBytes
        }
        /// A lecternd beside this program (or this program), with the default limits.
        public static var beside: Probe { Probe(executable: Service.renderWorkerExecutable()) }
    }

    public let directory: URL
    /// Opened PDFs, the most recently used last; at most `openDocuments` of them.
    private let documents = Mutex<[(id: String, document: PDFDocument)]>([])
    /// How many opened PDFs are kept (poppler keeps fonts, images and parsed objects of
    /// each: an appliance that shows hundreds of decks must let them go).
    public let openDocuments: Int
    public let probe: Probe
    /// At most 2 checks at a time (each a child of up to ~270 MB of mapped libraries and its budget).
    private let probing = DispatchSemaphore(value: 2)
    private let logger = Logger(label: "lecternd.content")

    public init(dataDir: String, openDocuments: Int = 4, probe: Probe = .beside) throws {
        self.openDocuments = max(1, openDocuments)
        self.probe = probe
        directory = URL(fileURLWithPath: dataDir).appendingPathComponent("content")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: Self.ownerOnlyDirectory)
    }

    public func path(of id: String) -> String { directory.appendingPathComponent(id).path }

    /// The file the pipeline reads for upload `id`: a converted deck's PDF (`<id>.pdf`),
    /// else its first page while the rest converts (`<id>.first.pdf`, §30.8), else the
    /// upload itself.
    public func deckPath(of id: String) -> String {
        for suffix in [".pdf", Self.firstPageSuffix] where FileManager.default.fileExists(atPath: path(of: id) + suffix) {
            return path(of: id) + suffix
        }
        return path(of: id)
    }

    /// Content ids are lowercase hex SHA-256: nothing else may name a file here.
    public static func isValidID(_ id: String) -> Bool {
        id.count == 64 && id.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }

    /// SHA-256 of a file, streamed.
    public static func sha256(ofFile path: String) throws -> String {
        guard let h = FileHandle(forReadingAtPath: path) else {
            throw ContentError.unreadable(path: path, reason: "can't open")
        }
        defer { try? h.close() }
        var hasher = SHA256()
        while let chunk = try h.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Adds a copy of the file at `path` (checked: a PDF must open). Returns the stored item;
    /// a file already stored is not copied again.
    @discardableResult
    public func add(fileAt path: String, name: String? = nil, uploader: String = "") throws -> Item {
        let id = try Self.sha256(ofFile: path)
        if let existing = item(id) { return existing }
        let tmp = directory.appendingPathComponent(".\(id).\(UUID().uuidString).tmp").path
        defer { unlink(tmp) }
        guard FileManager.default.fileExists(atPath: path) else { throw ContentError.unreadable(path: path, reason: "no such file") }
        try? FileManager.default.removeItem(atPath: tmp)
        try FileManager.default.copyItem(atPath: path, toPath: tmp)
        try FileManager.default.setAttributes(Self.ownerOnly, ofItemAtPath: tmp)
        return try adopt(tmpFile: tmp, id: id, name: name ?? (path as NSString).lastPathComponent, uploader: uploader)
    }

    /// Moves a complete, verified file (`tmpFile`, on the same file system) into the store
    /// under `id`. Checks it is a PDF that opens or a clip.
    public func adopt(tmpFile: String, id: String, name: String, uploader: String, durationMs: UInt32? = nil) throws -> Item {
        let kind = try self.kind(ofFile: tmpFile, name: name)
        var pages = 0
        var deck: DeckFacts?
        var checked: Int?
        if kind == .pdf {   // read in the bounded child, never in this process
            let (facts, rule) = try check(tmpFile, name: name)
            pages = facts.pageCount
            deck = DeckFacts(facts)
            checked = rule
        }
        let durationMs = kind == .clip ? try durationMs ?? Self.clipDurationMs(tmpFile) : nil
        try AtomicFile.fsync(path: tmpFile)
        let size = (try FileManager.default.attributesOfItem(atPath: tmpFile)[.size] as? NSNumber)?.int64Value ?? 0
        let item = Item(
            id: id, name: name, kind: kind, size: size, pages: pages, uploader: uploader, durationMs: durationMs, deck: deck,
            openChecked: checked)
        guard rename(tmpFile, path(of: id)) == 0 else {
            throw ContentError.unreadable(path: name, reason: String(cString: strerror(errno)))
        }
        try AtomicFile.write(JSONEncoder().encode(item), to: path(of: id) + ".json")
        AtomicFile.fsync(directory: directory.path)
        return item
    }

    /// A clip's length in milliseconds, as probed (what can't be probed is refused).
    static func clipDurationMs(_ path: String) throws -> UInt32 {
        UInt32(clamping: Int((max(0, try ClipProbe.probe(path: path).duration) * 1000).rounded()))
    }

    /// The stored items as the room knows them (read once at start). A clip stored before
    /// durations were kept is probed for its length once, and its description keeps it
    /// from then on. A PDF stored before uploads were checked in a child (or whose facts
    /// an older rule decided) is checked now, the same way, before anything opens it
    /// here: one the check refuses is removed from the store, with a log line saying why.
    public func entries() -> [ContentEntry] {
        items().compactMap { (stored: Item) -> ContentEntry? in
            guard !stored.awaitsConversion else { return nil }   // `unconverted()`
            unlink(path(of: stored.id) + Self.firstPageSuffix)   // its whole PDF took over before the restart
            var item = stored
            if item.kind == .clip, item.durationMs == nil {
                item.durationMs = (try? Self.clipDurationMs(path(of: item.id))) ?? 0
                if let data = try? JSONEncoder().encode(item) { try? AtomicFile.write(data, to: path(of: item.id) + ".json") }
            }
            if item.kind == .pdf, item.openChecked != DeckProbe.rule || item.deck?.outdated ?? true {
                do {
                    item = try recheck(item)
                } catch let e as ContentError {
                    logger.warning("removed upload \(item.id.prefix(12)) (\(item.name)) from the store: \(e)")
                    remove(item.id)
                    return nil
                } catch {
                    logger.warning("could not check upload \(item.id.prefix(12)) (\(item.name)): \(error); it is checked again when shown")
                }
            }
            var entry = ContentEntry(item, notes: notes(of: item.id))
            let modified = (try? FileManager.default.attributesOfItem(atPath: path(of: item.id))[.modificationDate]) as? Date
            entry.storedAt = modified?.timeIntervalSince1970 ?? 0
            return entry
        }
    }

    /// `item` checked again in the child, its facts and mark written to its description.
    private func recheck(_ stored: Item) throws -> Item {
        var item = stored
        let (facts, rule) = try check(deckPath(of: item.id), name: item.name)
        item.pages = facts.pageCount
        item.deck = DeckFacts(facts)
        item.openChecked = rule
        if let data = try? JSONEncoder().encode(item) { try? AtomicFile.write(data, to: path(of: item.id) + ".json") }
        return item
    }

    /// A PDF's facts, read in the bounded child (`DeckProbe`), at most two at a time, and
    /// the rule it passed; in-process (rule nil: not checked) only without a lecternd.
    func check(_ file: String, name: String) throws -> (DeckProbe.Facts, Int?) {
        guard let executable = probe.executable else {
            let l = probe.limits
            return (DeckProbe.readFacts(try PDFDocument(path: file), noteCharacters: l.noteCharacters, deckNotesBytes: l.deckNotesBytes), nil)
        }
        probing.wait()
        defer { probing.signal() }
        return (try DeckProbe.facts(of: file, name: name, executable: executable, limits: probe.limits), DeckProbe.rule)
    }

    /// Removes a stored upload when its meeting ended (docs/protocol.md §27, `uploads_kept`).
    public func removeUpload(_ id: String) {
        remove(id)
        logger.info("removed upload \(id.prefix(12)): its meeting ended")
    }

    /// Removes the stored original of a conversion that made no deck (the room logged why).
    public func discardUpload(_ id: String) { remove(id) }

    /// Removes a stored upload (its file, description and notes).
    private func remove(_ id: String) {
        guard Self.isValidID(id) else { return }
        forget(id)
        for suffix in [".json", ".notes.json", ".pdf", Self.firstPageSuffix, ""] { unlink(path(of: id) + suffix) }
        AtomicFile.fsync(directory: directory.path)
    }

    /// The notes kept with upload `id` (typed, or from a .pdfpc file).
    public func notes(of id: String) -> DeckNotes {
        guard Self.isValidID(id), let data = FileManager.default.contents(atPath: path(of: id) + ".notes.json"),
            let notes = try? JSONDecoder().decode(DeckNotes.self, from: data)
        else { return DeckNotes() }
        return notes
    }

    /// Keeps `notes` with upload `id` (written whole, atomically).
    public func saveNotes(_ notes: DeckNotes, for id: String) throws {
        guard Self.isValidID(id) else { return }
        try AtomicFile.write(JSONEncoder().encode(notes), to: path(of: id) + ".notes.json")
    }

    /// The stored item with `id`, or nil.
    public func item(_ id: String) -> Item? {
        guard Self.isValidID(id), FileManager.default.fileExists(atPath: path(of: id)),
            let data = FileManager.default.contents(atPath: path(of: id) + ".json")
        else { return nil }
        return try? JSONDecoder().decode(Item.self, from: data)
    }

    public func items() -> [Item] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.compactMap { item(String($0.dropLast(5))) }
            .sorted { $0.name < $1.name }
    }

    /// The opened PDF with content id `id`: opened once, then kept while it is among the
    /// `openDocuments` most recently used. The one used longest ago is let go (a render
    /// still holding it keeps it until that ends), and freed memory goes back to the system.
    /// A file is opened here only once the child checked it (`check`): at upload, at start,
    /// or now, for a file the start couldn't check.
    public func document(_ id: String) throws -> PDFDocument {
        var evicted: PDFDocument?
        defer {
            if evicted != nil {
                evicted = nil
                Memory.giveBack()
            }
        }
        if let d = cached(id) { return d }
        guard Self.isValidID(id), FileManager.default.fileExists(atPath: path(of: id)), let item = self.item(id) else {
            throw ContentError.unreadable(path: String(id.prefix(12)), reason: "no such upload")
        }
        if item.openChecked != DeckProbe.rule, probe.executable != nil {
            _ = try recheck(item)   // outside the lock: it may take the check's seconds
        }
        let path = deckPath(of: id), openDocuments = self.openDocuments
        let (d, out) = try documents.withLock { documents -> (PDFDocument, PDFDocument?) in
            if let i = documents.firstIndex(where: { $0.id == id }) { return (documents[i].document, nil) }
            let d = try PDFDocument(path: path)
            documents.append((id, d))
            return (d, documents.count > openDocuments ? documents.removeFirst().document : nil)
        }
        evicted = out
        return d
    }

    /// The stored PDF of upload `id`, for a render worker to open (a converted deck's
    /// `<id>.pdf`, as `deckPath`): the service itself opens no PDF for a page the worker draws
    /// (its box and transition come with the page).
    public func file(_ id: String) throws -> String {
        guard Self.isValidID(id), FileManager.default.fileExists(atPath: path(of: id)) else {
            throw ContentError.unreadable(path: String(id.prefix(12)), reason: "no such upload")
        }
        return deckPath(of: id)
    }

    /// The opened PDF `id` if it is open, now the most recently used.
    private func cached(_ id: String) -> PDFDocument? {
        documents.withLock { documents in
            guard let i = documents.firstIndex(where: { $0.id == id }) else { return nil }
            let d = documents.remove(at: i)
            documents.append(d)
            return d.document
        }
    }

    /// Lets go of the opened PDF `id` (a render of it overran and holds it): the next
    /// `document(id)` opens it afresh.
    public func forget(_ id: String) {
        documents.withLock { docs in docs.removeAll { $0.id == id } }
    }

    /// How many PDFs are open now.
    public var openCount: Int { documents.withLock { $0.count } }

    /// PDF or clip: what the decoders accept. By the first bytes where they tell — a `%PDF-`
    /// header in the first KiB; the signatures of MP4/MOV (ISO BMFF boxes), Matroska/WebM
    /// (EBML), MPEG-TS (0x47 every 188 bytes) and M2TS (every 192), MPEG-PS and raw Annex B
    /// H.264 (a start code) — else by what the decoders make of the file: one FFmpeg reads
    /// as a container (not a still image) is a clip, one poppler opens is a PDF (its header
    /// missing or late, as some exporters write it). A clip's kind says nothing yet about
    /// whether it plays: `ClipProbe` decides that, saying why not. Anything else is
    /// `notAPDF` (the room answers `unsupportedFileType`). Poppler tries a file only in the
    /// bounded child (`check`): one whose opening goes past its budget is refused for that.
    public func kind(ofFile path: String, name: String? = nil) throws -> ContentKind {
        guard let h = FileHandle(forReadingAtPath: path) else { throw ContentError.unreadable(path: path, reason: "can't open") }
        defer { try? h.close() }
        let head = (try h.read(upToCount: 1024)) ?? Data()
        if head.isEmpty { throw ContentError.empty }
        if head.range(of: Data("%PDF-".utf8)) != nil { return .pdf }
        if Self.isClipSignature([UInt8](head)) { return .clip }
        if ClipProbe.container(path: path) != nil { return .clip }
        do {
            _ = try check(path, name: name ?? (path as NSString).lastPathComponent)
            return .pdf
        } catch let e as ContentError where e.isOverProbeLimits(probe.limits) {
            throw e   // what poppler made of it is too costly: said so, not "not a PDF"
        } catch {
            throw ContentError.notAPDF
        }
    }

    /// The first bytes of a clip container or stream FFmpeg reads.
    static func isClipSignature(_ b: [UInt8]) -> Bool {
        // A HEIC is an ISO BMFF file too, but a still image (§30.9), not a clip.
        if ImageFormat(head: b) != nil { return false }
        // ISO BMFF (MP4, MOV, 3GP): a box type at 4.
        if b.count >= 8, ["ftyp", "moov", "mdat", "wide", "free", "skip", "pnot"].contains(where: { Array($0.utf8) == Array(b[4..<8]) }) {
            return true
        }
        if b.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return true }   // Matroska, WebM (EBML)
        // MPEG-TS: the sync byte 0x47 opens every 188-byte packet (M2TS: 192, after a 4-byte time code).
        if b.count > 188, b[0] == 0x47, b[188] == 0x47 { return true }
        if b.count > 196, b[4] == 0x47, b[196] == 0x47 { return true }
        // A start code: raw Annex B H.264/H.265, MPEG-PS (00 00 01 BA).
        return b.starts(with: [0, 0, 0, 1]) || b.starts(with: [0, 0, 1])
    }

    // MARK: atomic files

    /// What the service creates in its data directory is its own, whatever the umask:
    /// uploads, the state (with the floor holder's resume token).
    /// (Computed: a dictionary of `Any` is not Sendable, so it can't be a shared constant.)
    public static var ownerOnly: [FileAttributeKey: Any] { [.posixPermissions: 0o600] }
    public static var ownerOnlyDirectory: [FileAttributeKey: Any] { [.posixPermissions: 0o700] }
}

extension ContentEntry {
    /// The room's view of a stored item.
    init(_ item: ContentStore.Item, notes: DeckNotes = DeckNotes()) {
        self.init(
            id: ContentID(hex: item.id) ?? ContentID(bytes: [UInt8](repeating: 0, count: 32))!, name: item.name,
            kind: item.kind, size: UInt64(max(0, item.size)), pages: item.pages, durationMs: item.durationMs ?? 0,
            console: item.deck.map { DeckConsole(facts: $0, notes: notes) })
        convertedFrom = item.convertedFrom
        convertedBytes = UInt64(max(0, item.convertedSize ?? 0))
        awaitsConversion = item.awaitsConversion
    }
}

extension ContentError {
    /// The deck probe refused the file for what opening or reading it costs.
    func isOverProbeLimits(_ l: DeckProbe.Limits) -> Bool {
        guard case .unreadable(_, let reason) = self else { return false }
        return reason == DeckProbe.openingReason(l) || reason == DeckProbe.readingReason(l)
    }
}

extension DeckFacts {
    /// The facts the deck probe read.
    init(_ f: DeckProbe.Facts) {
        self.init(labels: f.labels, detectedLayout: f.layout, annotations: f.annotations)
    }
}
