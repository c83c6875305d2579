/// Encoded page images for viewers (docs/protocol.md §24.2): each page at each quantised
/// width, encoded once, kept while there is room. Bounded by bytes (the images' sizes);
/// the least recently used goes first; an image larger than the whole budget is not kept.
/// Pure (the web server's shell locks it).
public struct PageImageCache: Sendable {
    public struct Key: Hashable, Sendable {
        public var content: String
        public var page: Int
        public var width: Int
        public var part: PagePart
        /// The output's size: a mode change changes the pixels (the page sits as on the wall).
        public var outputWidth: Int
        public var outputHeight: Int
        public init(content: String, page: Int, width: Int, part: PagePart, outputWidth: Int, outputHeight: Int) {
            self.content = content; self.page = page; self.width = width; self.part = part
            self.outputWidth = outputWidth; self.outputHeight = outputHeight
        }
    }

    public struct Image: Equatable, Sendable {
        public let bytes: [UInt8]
        /// "image/jpeg" or "image/png".
        public let contentType: String
        /// A strong validator: a hash of the bytes, quoted.
        public let etag: String
        public init(bytes: [UInt8], contentType: String, etag: String) {
            self.bytes = bytes; self.contentType = contentType; self.etag = etag
        }
    }

    public let capacityBytes: Int
    private var entries: [Key: (image: Image, tick: UInt64)] = [:]
    private var tick: UInt64 = 0
    public private(set) var bytes = 0
    public var count: Int { entries.count }

    public init(capacityBytes: Int) { self.capacityBytes = max(0, capacityBytes) }

    public mutating func lookup(_ key: Key) -> Image? {
        guard let e = entries[key] else { return nil }
        tick += 1
        entries[key] = (e.image, tick)
        return e.image
    }

    public mutating func insert(_ image: Image, for key: Key) {
        guard image.bytes.count <= capacityBytes else { return }
        if let old = entries.removeValue(forKey: key) { bytes -= old.image.bytes.count }
        while bytes + image.bytes.count > capacityBytes, let oldest = entries.min(by: { $0.value.tick < $1.value.tick }) {
            bytes -= oldest.value.image.bytes.count
            entries[oldest.key] = nil
        }
        tick += 1
        entries[key] = (image, tick)
        bytes += image.bytes.count
    }
}
