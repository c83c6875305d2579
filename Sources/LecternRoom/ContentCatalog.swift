import LecternModel
import LecternProtocol

/// One stored file as the room knows it.
public struct ContentEntry: Equatable, Sendable {
    public var id: ContentID
    public var name: String
    public var kind: ContentKind
    public var size: UInt64
    /// Pages of a PDF; 0 for a clip.
    public var pages: Int
    /// Length of a clip in milliseconds (what upload-ready and upload-stored say); 0 for a PDF.
    public var durationMs: UInt32
    /// A PDF's labels, beamer layout, annotations and notes (the presenter console); nil for a clip.
    public var console: DeckConsole?
    /// When the file was stored (wall clock, seconds since 1970; 0: not known): `uploads_kept = "day"` (§27).
    public var storedAt: Double = 0
    /// A converted deck (§30): what it was converted from ("pptx"); nil for a PDF or clip
    /// uploaded as such. Its kind is `.pdf`.
    public var convertedFrom: String?
    /// The original is stored and its PDF doesn't exist yet: it is in the room's
    /// `ConversionQueue`, never in the catalog.
    public var awaitsConversion = false
    /// Bytes of a converted deck's PDF (the quota counts them besides the original's `size`).
    public var convertedBytes: UInt64 = 0
    /// A deck whose first page is shown while the rest converts (§30.8): the pages past
    /// `pages` are still to come. Never in the catalog: the room's `ConversionQueue` holds it.
    public var growing = false
    public init(id: ContentID, name: String, kind: ContentKind, size: UInt64, pages: Int, durationMs: UInt32 = 0, console: DeckConsole? = nil) {
        self.id = id
        self.name = name
        self.kind = kind
        self.size = size
        self.pages = pages
        self.durationMs = durationMs
        self.console = console
    }

    /// The deck's console facts, or plain numbers for a PDF stored without them.
    public var deck: DeckConsole {
        console ?? DeckConsole(facts: DeckFacts(labels: (0..<pages).map { String($0 + 1) }))
    }

    public var snapshot: ContentSnapshot { ContentSnapshot(id: id, name: name, kind: kind, convertedFrom: convertedFrom) }
}

/// The files in the content store, kept in memory so the core never reads the disk: the
/// shell lists the store at start, and every stored upload is added.
public struct ContentCatalog: Equatable, Sendable {
    private var entries: [ContentID: ContentEntry] = [:]

    public init(_ entries: [ContentEntry] = []) {
        for e in entries { self.entries[e.id] = e }
    }

    public subscript(_ id: ContentID) -> ContentEntry? { entries[id] }

    /// Sets the entry of a deck that is not a file (the whiteboards, whose page count grows).
    public mutating func set(_ entry: ContentEntry) { entries[entry.id] = entry }

    /// Adds `entry` unless the store already had the file (the first name stays).
    public mutating func add(_ entry: ContentEntry) {
        if entries[entry.id] == nil { entries[entry.id] = entry }
    }

    /// Every entry, by id (whiteboards included).
    public var all: [ContentEntry] { entries.values.sorted { $0.id < $1.id } }

    /// Forgets a removed upload.
    public mutating func remove(_ id: ContentID) { entries[id] = nil }

    /// Replaces the notes kept with a stored PDF.
    public mutating func setNotes(_ notes: DeckNotes, for id: ContentID) {
        guard var e = entries[id] else { return }
        var deck = e.deck
        deck.notes = notes
        e.console = deck
        entries[id] = e
    }
}
