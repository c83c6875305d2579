/// The photos and images the appliance makes into decks (docs/protocol.md §30.9): one row
/// each, read by the decoder's allow-list, the upload picker's `accept` list and the
/// documents. libvips decodes them all (HEIF, HEIC and AVIF through libheif).
public enum ImageFormat: String, CaseIterable, Sendable {
    case jpeg, png, webp, gif, heif

    public struct Row: Sendable {
        /// For people: "JPEG".
        public let name: String
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
        case .jpeg: Row(name: "JPEG", extensions: [".jpg", ".jpeg", ".jpe", ".jfif"], mimeTypes: ["image/jpeg"], loader: "VipsForeignLoadJpeg", lossy: true)
        case .png: Row(name: "PNG", extensions: [".png"], mimeTypes: ["image/png"], loader: "VipsForeignLoadPng", lossy: false)
        case .webp: Row(name: "WebP", extensions: [".webp"], mimeTypes: ["image/webp"], loader: "VipsForeignLoadWebp", lossy: true)
        case .gif: Row(name: "GIF", extensions: [".gif"], mimeTypes: ["image/gif"], loader: "VipsForeignLoadNsgif", lossy: false)
        case .heif:
            Row(
                name: "HEIC/HEIF", extensions: [".heic", ".heif", ".hif", ".avif"], mimeTypes: ["image/heic", "image/heif", "image/avif"],
                loader: "VipsForeignLoadHeif", lossy: true)
        }
    }

    /// The format whose loader class `loaderClass` is (or is a subclass of, by name).
    public init?(loaderClass: String) {
        guard let f = Self.allCases.first(where: { loaderClass.hasPrefix($0.row.loader) }) else { return nil }
        self = f
    }

    /// "JPEG, PNG, WebP, GIF and HEIC/HEIF" (messages and documents).
    public static var names: String {
        let n = allCases.map(\.row.name)
        return n.dropLast().joined(separator: ", ") + " and " + n.last!
    }
}
