import CZip
import Foundation

/// What a converter looks at to recognise a file by its content (never by its name alone):
/// its first bytes and, for a zip (OOXML, ODF, Keynote), the names and declared sizes of its
/// parts, read from the zip's central directory by libzip (nothing is unpacked).
public struct FileSniff: Sendable {
    /// The file's first 4 KiB (fewer for a smaller file).
    public let head: [UInt8]
    public let size: UInt64
    /// The file name given at upload: a hint for a label where the content can't tell
    /// (an OLE2 compound file is a .doc, .ppt or .xls), never for what is accepted.
    public let name: String
    /// A zip's parts (at most `maxEntries` of them, in the directory's order); nil: not a zip.
    public let zipEntries: [ZipEntry]?
    /// The zip has more parts than `maxEntries`.
    public let zipTruncated: Bool
    /// Where the file is, for a converter that must look further (nil: only these bytes).
    public let path: String?

    public struct ZipEntry: Equatable, Sendable {
        public let name: String
        /// The size it claims to unpack to (a zip bomb lies here or in its data: the
        /// converter's sandbox bounds what it really unpacks to).
        public let size: UInt64
    }

    public static let headBytes = 4096
    public static let maxEntries = 20_000

    public init(head: [UInt8], size: UInt64, name: String, zipEntries: [ZipEntry]? = nil, zipTruncated: Bool = false, path: String? = nil) {
        self.path = path
        self.head = head
        self.size = size
        self.name = name
        self.zipEntries = zipEntries
        self.zipTruncated = zipTruncated
    }

    /// Reads the file at `path`.
    public init(path: String, name: String) throws {
        guard let h = FileHandle(forReadingAtPath: path) else { throw CocoaError(.fileReadNoSuchFile) }
        defer { try? h.close() }
        let head = [UInt8]((try h.read(upToCount: Self.headBytes)) ?? Data())
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.uint64Value ?? UInt64(head.count)
        var entries: [ZipEntry]?
        var truncated = false
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) || head.starts(with: [0x50, 0x4B, 0x05, 0x06]) {
            (entries, truncated) = Self.zipEntries(path)
        }
        self.init(head: head, size: size, name: name, zipEntries: entries, zipTruncated: truncated, path: path)
    }

    /// The parts of the zip at `path` (nil: libzip can't read it as a zip).
    static func zipEntries(_ path: String) -> ([ZipEntry]?, Bool) {
        var error: Int32 = 0
        guard let z = zip_open(path, ZIP_RDONLY, &error) else { return (nil, false) }
        defer { zip_discard(z) }
        let n = zip_get_num_entries(z, 0)
        guard n >= 0 else { return (nil, false) }
        var out: [ZipEntry] = []
        out.reserveCapacity(Int(min(n, Int64(maxEntries))))
        var st = zip_stat_t()
        for i in 0..<min(n, Int64(maxEntries)) {
            zip_stat_init(&st)
            guard zip_stat_index(z, UInt64(i), 0, &st) == 0, let cname = st.name else { continue }
            out.append(ZipEntry(name: String(cString: cname), size: st.size))
        }
        return (out, n > Int64(maxEntries))
    }

    public var isZip: Bool { zipEntries != nil }
    public func hasZipEntry(_ name: String) -> Bool { zipEntries?.contains { $0.name == name } ?? false }
    public func hasZipEntry(prefix: String) -> Bool { zipEntries?.contains { $0.name.hasPrefix(prefix) } ?? false }
    /// What the zip's parts claim to unpack to, in all.
    public var declaredUnpackedSize: UInt64 { zipEntries?.reduce(0) { $0 &+ $1.size } ?? 0 }

    /// The first bytes are `bytes` at `offset`.
    public func has(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
        head.count >= offset + bytes.count && Array(head[offset..<offset + bytes.count]) == bytes
    }
    public func has(_ ascii: String, at offset: Int = 0) -> Bool { has(Array(ascii.utf8), at: offset) }

    /// The file name's extension, lower-case ("pptx"; "" without one).
    public var nameExtension: String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...]).lowercased()
    }
}
