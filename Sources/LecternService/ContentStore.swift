import Crypto
import Foundation
import LecternCore
import LecternRender
import LecternRoom
import LecternVideo

/// Uploaded files, content-addressed under `<data_dir>/content/`: a file is stored as
/// `<sha256>` with a `<sha256>.json` description beside it. Writes are atomic (temp file,
/// fsync, rename), so a crash never leaves half a file under a content id.
public final class ContentStore: @unchecked Sendable {
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
    }

    public let directory: URL
    private let lock = NSLock()
    private var documents: [String: PDFDocument] = [:]

    public init(dataDir: String) throws {
        directory = URL(fileURLWithPath: dataDir).appendingPathComponent("content")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    public func path(of id: String) -> String { directory.appendingPathComponent(id).path }

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
        return try adopt(tmpFile: tmp, id: id, name: name ?? (path as NSString).lastPathComponent, uploader: uploader)
    }

    /// Moves a complete, verified file (`tmpFile`, on the same file system) into the store
    /// under `id`. Checks it is a PDF that opens or a clip.
    public func adopt(tmpFile: String, id: String, name: String, uploader: String, durationMs: UInt32? = nil) throws -> Item {
        let kind = try Self.kind(ofFile: tmpFile)
        var pages = 0
        if kind == .pdf { pages = try PDFDocument(path: tmpFile).pageCount }
        let durationMs = kind == .clip ? try durationMs ?? Self.clipDurationMs(tmpFile) : nil
        try Self.fsync(path: tmpFile)
        let size = (try FileManager.default.attributesOfItem(atPath: tmpFile)[.size] as? NSNumber)?.int64Value ?? 0
        let item = Item(id: id, name: name, kind: kind, size: size, pages: pages, uploader: uploader, durationMs: durationMs)
        guard rename(tmpFile, path(of: id)) == 0 else {
            throw ContentError.unreadable(path: name, reason: String(cString: strerror(errno)))
        }
        try Self.writeAtomically(JSONEncoder().encode(item), to: path(of: id) + ".json")
        Self.fsync(directory: directory.path)
        return item
    }

    /// A clip's length in milliseconds, as probed (what can't be probed is refused).
    static func clipDurationMs(_ path: String) throws -> UInt32 {
        UInt32(clamping: Int((max(0, try ClipProbe.probe(path: path).duration) * 1000).rounded()))
    }

    /// The stored items as the room knows them; a clip stored before durations were kept
    /// is probed for its length.
    public func entries() -> [ContentEntry] {
        items().map { item in
            var entry = ContentEntry(item)
            if item.kind == .clip, item.durationMs == nil { entry.durationMs = (try? Self.clipDurationMs(path(of: item.id))) ?? 0 }
            return entry
        }
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

    /// The opened PDF with content id `id` (opened once, then kept).
    public func document(_ id: String) throws -> PDFDocument {
        lock.lock(); defer { lock.unlock() }
        if let d = documents[id] { return d }
        guard Self.isValidID(id), FileManager.default.fileExists(atPath: path(of: id)) else {
            throw ContentError.unreadable(path: String(id.prefix(12)), reason: "no such upload")
        }
        let d = try PDFDocument(path: path(of: id))
        documents[id] = d
        return d
    }

    /// PDF or clip, by the file's first bytes.
    public static func kind(ofFile path: String) throws -> ContentKind {
        guard let h = FileHandle(forReadingAtPath: path) else { throw ContentError.unreadable(path: path, reason: "can't open") }
        defer { try? h.close() }
        let head = (try h.read(upToCount: 1024)) ?? Data()
        if head.isEmpty { throw ContentError.empty }
        if head.range(of: Data("%PDF-".utf8)) != nil { return .pdf }
        let bytes = [UInt8](head)
        // ISO BMFF (MP4/MOV: "ftyp" at 4), Matroska (EBML 1A 45 DF A3), Annex B (00 00 01 / 00 00 00 01)
        if bytes.count >= 8,
            Array(bytes[4..<8]) == Array("ftyp".utf8) || Array(bytes[4..<8]) == Array("moov".utf8)
                || Array(bytes[4..<8]) == Array("mdat".utf8) || Array(bytes[4..<8]) == Array("wide".utf8)
        {
            return .clip
        }
        if bytes.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return .clip }
        if bytes.starts(with: [0, 0, 0, 1]) || bytes.starts(with: [0, 0, 1]) { return .clip }
        throw ContentError.notAPDF
    }

    // MARK: atomic files

    /// Writes `data` to `path` through a temp file, fsync and rename.
    public static func writeAtomically(_ data: Data, to path: String) throws {
        let tmp = path + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: tmp, contents: data) else {
            throw ContentError.unreadable(path: path, reason: "can't write")
        }
        try fsync(path: tmp)
        guard rename(tmp, path) == 0 else {
            unlink(tmp)
            throw ContentError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        fsync(directory: (path as NSString).deletingLastPathComponent)
    }

    static func fsync(path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw ContentError.unreadable(path: path, reason: "can't open") }
        defer { close(fd) }
        _ = Glibc.fsync(fd)
    }

    static func fsync(directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY)
        if fd >= 0 { _ = Glibc.fsync(fd); close(fd) }
    }
}
