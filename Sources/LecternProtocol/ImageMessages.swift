import LecternModel

// Photos and images (docs/protocol.md §30.9): each image uploaded is a one-page deck;
// images-deck (0x44) makes several stored images one deck, in the order given. Its reply is
// upload-stored of the new deck (kind 1, its page count) once the deck exists; meanwhile
// conversion-progress with the same tag, as for an upload.

/// images-deck (0x44, C→S).
public struct ImagesDeck: Equatable, Sendable {
    /// Stored image uploads, in the deck's order (1 to `maxImages`; the room's own limit,
    /// `image_max_count`, may be lower).
    public var images: [ContentID]
    /// The deck's name, shown in the state (a file name's rules, §2.4).
    public var name: String

    public static let maxImages = 1000

    public init(images: [ContentID], name: String) {
        self.images = images
        self.name = name
    }
}

extension Body {
    // images-deck (0x44): u16 count, count × 32-byte content ids, u16 name length, name.
    static func imagesDeck(_ d: ImagesDeck, _ w: inout ByteWriter) {
        w.u16(UInt16(clamping: d.images.count))
        for c in d.images.prefix(Int(UInt16.max)) { w.bytes(c.bytes) }
        w.string16(d.name)
    }
    static func imagesDeck(_ r: inout ByteReader) throws -> ImagesDeck {
        let n = Int(try r.u16())
        guard (1...ImagesDeck.maxImages).contains(n) else { throw WireError.invalid("an images-deck names 1 to \(ImagesDeck.maxImages) images") }
        var images: [ContentID] = []
        for _ in 0..<n { images.append(try contentID(&r)) }
        return ImagesDeck(images: images, name: try r.string16(max: 255, field: "deck name"))
    }
}
