/// The photos and images the appliance makes into decks (docs/protocol.md §30.9): one row
/// each, read by the decoder's allow-list, the upload picker's `accept` list and the
/// documents. libvips decodes them all (HEIF, HEIC and AVIF through libheif).
public enum ImageFormat: String, CaseIterable, Sendable {
    case jpeg, png, webp, gif, heif

    public struct Row: Sendable {
        /// For people: "JPEG".
        public let name: String
        /// Files of the format, for people ("JPEG photos").
        public let what: String
        /// File extensions a picker offers, lower case, with the dot.
        public let extensions: [String]
        /// MIME types a picker offers.
        public let mimeTypes: [String]
        /// libvips's loader class (a subclass of it reads the file: `VipsForeignLoadJpegFile`).
        public let loader: String
        /// Whether the source is lossy (a photo): its page embeds a JPEG; else the page keeps
        /// the decoded pixels exactly (Flate, as a screenshot or a diagram needs).
        public let lossy: Bool
    }

    public var row: Row {
        switch self {
        case .jpeg:
            Row(name: "JPEG", what: "JPEG photos", extensions: [".jpg", ".jpeg", ".jpe", ".jfif"], mimeTypes: ["image/jpeg"], loader: "VipsForeignLoadJpeg", lossy: true)
        case .png: Row(name: "PNG", what: "PNG images", extensions: [".png"], mimeTypes: ["image/png"], loader: "VipsForeignLoadPng", lossy: false)
        case .webp: Row(name: "WebP", what: "WebP images", extensions: [".webp"], mimeTypes: ["image/webp"], loader: "VipsForeignLoadWebp", lossy: true)
        case .gif: Row(name: "GIF", what: "GIF images", extensions: [".gif"], mimeTypes: ["image/gif"], loader: "VipsForeignLoadNsgif", lossy: false)
        case .heif:
            Row(
                name: "HEIC/HEIF", what: "HEIC/HEIF photos", extensions: [".heic", ".heif", ".hif", ".avif"],
                mimeTypes: ["image/heic", "image/heif", "image/avif"], loader: "VipsForeignLoadHeif", lossy: true)
        }
    }

    /// The format whose loader class `loaderClass` is (or is a subclass of, by name).
    public init?(loaderClass: String) {
        guard let f = Self.allCases.first(where: { loaderClass.hasPrefix($0.row.loader) }) else { return nil }
        self = f
    }

    /// The format of a file by its first bytes (at least 16 of them), or nil: JPEG's SOI
    /// marker, PNG's and GIF's signatures, a RIFF WEBP, or an ISO BMFF `ftyp` box whose
    /// major brand is a HEIF image's (an iPhone's HEIC: `heic`; AVIF: `avif`), which a
    /// clip's MP4 box never is.
    public init?(head b: [UInt8]) {
        func has(_ s: String, at o: Int) -> Bool { b.count >= o + s.utf8.count && Array(b[o..<o + s.utf8.count]) == Array(s.utf8) }
        if b.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if has("GIF87a", at: 0) || has("GIF89a", at: 0) {
            self = .gif
        } else if has("RIFF", at: 0), has("WEBP", at: 8) {
            self = .webp
        } else if has("ftyp", at: 4), Self.heifBrands.contains(where: { has($0, at: 8) }) {
            self = .heif
        } else {
            return nil
        }
    }

    /// The major brands of HEIF still images and image sequences (the primary image is shown).
    public static let heifBrands = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "avif", "avis"]

    /// "JPEG, PNG, WebP, GIF and HEIC/HEIF" (messages and documents).
    public static var names: String {
        let n = allCases.map(\.row.name)
        return n.dropLast().joined(separator: ", ") + " and " + n.last!
    }
}
