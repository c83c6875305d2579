/// Images chosen together, to become one deck in the order chosen (docs/protocol.md §30.9,
/// images-deck): stored as a small text file of its own, the original the room converts
/// like any upload, so the deck has a content id (its SHA-256) before it exists, waits in the
/// conversion queue, and survives a restart. The room writes it, only from images the
/// device may show; an upload never becomes one (`UploadWorker` refuses the format).
public struct ImageSet: Equatable, Sendable {
    /// The first line of the file.
    public static let magic = "lectern-image-set-v1\n"
    /// Its converted format's id ("images", §30.1).
    public static let format = "images"

    public struct Image: Equatable, Sendable {
        /// The stored image upload's content id, 64 lower-case hex digits.
        public var id: String
        /// Its file name, as given at upload (no tab, no line break: §2.4's names).
        public var name: String
        public init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    public var images: [Image]
    public init(images: [Image]) { self.images = images }

    /// The name a client gives the deck of `names` chosen together: "IMG_0001.heic and 2
    /// more" (at most 255 bytes, as a file name).
    public static func deckName(_ names: [String]) -> String {
        guard let first = names.first else { return "Images" }
        let more = names.count > 1 ? " and \(names.count - 1) more" : ""
        var head = first
        while (head + more).utf8.count > 255 { head.removeLast() }
        return head + more
    }

    /// The file: the magic line, then one line per image, `<id>\t<name>`.
    public var bytes: [UInt8] {
        Array((Self.magic + images.map { "\($0.id)\t\($0.name)\n" }.joined()).utf8)
    }

    /// Whether `head` (a file's first bytes) starts like one.
    public static func starts(_ head: some Collection<UInt8>) -> Bool { head.starts(with: magic.utf8) }

    /// The set in `bytes`, or nil when they are not one (at most `maxImages` images).
    public init?(bytes: [UInt8], maxImages: Int = 1000) {
        guard Self.starts(bytes) else { return nil }
        let text = String(decoding: bytes.dropFirst(Self.magic.utf8.count), as: UTF8.self)
        var images: [Image] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].count == 64, parts[0].allSatisfy({ $0.isHexDigit && !$0.isUppercase }), images.count < maxImages else {
                return nil
            }
            images.append(Image(id: String(parts[0]), name: String(parts[1])))
        }
        guard !images.isEmpty else { return nil }
        self.images = images
    }
}
