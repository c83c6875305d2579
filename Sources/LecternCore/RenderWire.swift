/// What the service and its render worker (`lecternd --render-worker`) say to each other,
/// one message per datagram of a SOCK_SEQPACKET socket pair. The pixels never travel in
/// a message: each request comes with a memfd (SCM_RIGHTS) of `stride * height` bytes
/// that the worker maps and draws into, and the service keeps as the frame.
///
/// Pure: encoding and decoding only (the process and the sockets are `RenderWorker`'s).
/// Little-endian, fixed fields, then length-prefixed UTF-8. A worker and a service are
/// always the same binary, so there is no version negotiation: the first byte only tells
/// a request from a reply.
public enum RenderWire {
    /// A page to draw into the memfd that comes with the request.
    public struct Request: Equatable, Sendable {
        public var serial: UInt32
        /// The PDF's path in the content store (the worker opens it read-only).
        public var path: String
        /// From 1.
        public var page: Int
        public var width: Int
        public var height: Int
        public var background: RGB
        public var overscanPercent: Double
        /// Only this part of the page, fitted as a page would be (beamer notes decks).
        public var part: PagePart

        public init(
            serial: UInt32, path: String, page: Int, width: Int, height: Int, background: RGB, overscanPercent: Double, part: PagePart = .whole
        ) {
            self.serial = serial; self.path = path; self.page = page
            self.width = width; self.height = height
            self.background = background; self.overscanPercent = overscanPercent
            self.part = part
        }

        /// Bytes of the frame the memfd holds.
        public var byteCount: Int { width * 4 * height }
    }

    /// The worker's answer to the request with `serial`.
    public struct Reply: Equatable, Sendable {
        public var serial: UInt32
        /// nil: the page is drawn in the memfd.
        public var error: ContentError?
        public init(serial: UInt32, error: ContentError? = nil) { self.serial = serial; self.error = error }
    }

    public struct Malformed: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Longest path a request carries (the store's paths are far shorter).
    public static let maxPath = 4096
    /// Largest frame side a request may ask for (8K and a margin).
    public static let maxSide = 16384
    /// Largest message either side sends or accepts (a request's path, a reply's detail).
    public static let maxMessage = 8192

    static let requestTag: UInt8 = 0x52   // "R"
    static let replyTag: UInt8 = 0x41   // "A"

    public static func encode(_ r: Request) -> [UInt8] {
        var w = Writer()
        w.u8(requestTag)
        w.u32(r.serial)
        w.u32(UInt32(clamping: r.page))
        w.u32(UInt32(clamping: r.width))
        w.u32(UInt32(clamping: r.height))
        w.u8(r.background.r); w.u8(r.background.g); w.u8(r.background.b)
        w.u64(r.overscanPercent.bitPattern)
        w.u8(UInt8(PagePart.allCases.firstIndex(of: r.part) ?? 0))
        w.string(String(decoding: Array(r.path.utf8.prefix(maxPath)), as: UTF8.self))
        return w.bytes
    }

    public static func decodeRequest(_ bytes: [UInt8]) throws -> Request {
        var r = Reader(bytes)
        guard try r.u8() == requestTag else { throw Malformed(description: "not a render request") }
        let serial = try r.u32()
        let page = Int(try r.u32()), width = Int(try r.u32()), height = Int(try r.u32())
        let bg = RGB(try r.u8(), try r.u8(), try r.u8())
        let overscan = Double(bitPattern: try r.u64())
        let partIndex = Int(try r.u8())
        guard partIndex < PagePart.allCases.count else { throw Malformed(description: "unknown page part \(partIndex)") }
        let path = try r.string(max: maxPath)
        try r.end()
        guard page >= 1, (1...maxSide).contains(width), (1...maxSide).contains(height) else {
            throw Malformed(description: "page \(page) at \(width)x\(height) is out of range")
        }
        guard overscan.isFinite, (0...25).contains(overscan) else { throw Malformed(description: "overscan \(overscan) is out of range") }
        guard !path.isEmpty else { throw Malformed(description: "no path") }
        return Request(
            serial: serial, path: path, page: page, width: width, height: height, background: bg, overscanPercent: overscan,
            part: PagePart.allCases[partIndex])
    }

    public static func encode(_ r: Reply) -> [UInt8] {
        var w = Writer()
        w.u8(replyTag)
        w.u32(r.serial)
        guard let e = r.error else {
            w.u8(0)
            return w.bytes
        }
        // A content error as its case and fields (what the room tells the presenter).
        switch e {
        case .empty: w.u8(1)
        case .notAPDF: w.u8(2)
        case .damaged(let d): w.u8(3); w.string(d)
        case .passwordProtected: w.u8(4)
        case .noPages: w.u8(5)
        case .pageOutOfRange(let p, let n): w.u8(6); w.u32(UInt32(clamping: p)); w.u32(UInt32(clamping: n))
        case .unreadable(let path, let reason): w.u8(7); w.string(path); w.string(reason)
        case .unsupportedMedia(let d): w.u8(8); w.string(d)
        case .tooSlow(let p, let s): w.u8(9); w.u32(UInt32(clamping: p)); w.u64(s.bitPattern)
        case .overLimits(let p, let mb): w.u8(10); w.u32(UInt32(clamping: p)); w.u32(UInt32(clamping: mb))
        }
        return w.bytes
    }

    public static func decodeReply(_ bytes: [UInt8]) throws -> Reply {
        var r = Reader(bytes)
        guard try r.u8() == replyTag else { throw Malformed(description: "not a render reply") }
        let serial = try r.u32()
        let error: ContentError?
        switch try r.u8() {
        case 0: error = nil
        case 1: error = .empty
        case 2: error = .notAPDF
        case 3: error = .damaged(detail: try r.string(max: 1024))
        case 4: error = .passwordProtected
        case 5: error = .noPages
        case 6: error = .pageOutOfRange(page: Int(try r.u32()), pageCount: Int(try r.u32()))
        case 7: error = .unreadable(path: try r.string(max: maxPath), reason: try r.string(max: 1024))
        case 8: error = .unsupportedMedia(detail: try r.string(max: 1024))
        case 9: error = .tooSlow(page: Int(try r.u32()), seconds: Double(bitPattern: try r.u64()))
        case 10: error = .overLimits(page: Int(try r.u32()), megabytes: Int(try r.u32()))
        case let t: throw Malformed(description: "unknown error kind \(t)")
        }
        try r.end()
        return Reply(serial: serial, error: error)
    }

    // MARK: bytes

    struct Writer {
        var bytes: [UInt8] = []
        mutating func u8(_ v: UInt8) { bytes.append(v) }
        mutating func u32(_ v: UInt32) { for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
        mutating func u64(_ v: UInt64) { for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
        mutating func string(_ s: String) {
            let b = Array(s.utf8.prefix(Int(UInt16.max)))
            bytes.append(UInt8(b.count & 0xFF)); bytes.append(UInt8(b.count >> 8))
            bytes += b
        }
    }

    struct Reader {
        let bytes: [UInt8]
        var at = 0
        init(_ b: [UInt8]) { bytes = b }
        mutating func take(_ n: Int) throws -> ArraySlice<UInt8> {
            guard n <= bytes.count - at else { throw Malformed(description: "truncated") }
            defer { at += n }
            return bytes[at..<(at + n)]
        }
        mutating func u8() throws -> UInt8 { try take(1).first! }
        mutating func u32() throws -> UInt32 { try take(4).reversed().reduce(0) { $0 << 8 | UInt32($1) } }
        mutating func u64() throws -> UInt64 { try take(8).reversed().reduce(0) { $0 << 8 | UInt64($1) } }
        mutating func string(max: Int) throws -> String {
            let lo = Int(try u8()), hi = Int(try u8())
            let n = lo | hi << 8
            guard n <= max else { throw Malformed(description: "a string of \(n) bytes (at most \(max))") }
            return String(decoding: try take(n), as: UTF8.self)
        }
        func end() throws { if at != bytes.count { throw Malformed(description: "\(bytes.count - at) bytes too many") } }
    }
}
