/// What the service and its render worker (`lecternd --render-worker`) say to each other,
/// one message per datagram of a SOCK_SEQPACKET socket pair. The pixels never travel in
/// a message: each request comes with a memfd (SCM_RIGHTS) of `stride * height` bytes
/// that the worker maps and draws into, and the service keeps as the frame.
///
/// A reply says, with the page drawn, where the page (or the part shown) sits in the frame
/// and the page's own transition (`/Trans`): the service never opens the PDF itself for them.
///
/// Pure: encoding and decoding only (the process and the sockets are `RenderWorker`'s).
/// Little-endian, fixed fields, then length-prefixed UTF-8. The first byte tells a request
/// from a reply, the second is the wire's `version`. A worker and a service are the same
/// binary, so there is no negotiation: a message of another version (a worker left running
/// across an upgrade) is refused as malformed, never guessed at.
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

    /// What the worker reports with a page drawn into the memfd.
    public struct Drawn: Equatable, Sendable {
        /// Where the page (or the part of it asked for) sits in the frame.
        public var pageRect: PixelRect
        /// The page's own transition (`/Trans`), nil when it has none.
        public var transition: PageTransition?
        public init(pageRect: PixelRect, transition: PageTransition? = nil) { self.pageRect = pageRect; self.transition = transition }
    }

    /// The worker's answer to the request with `serial`: the page drawn, or why not.
    public struct Reply: Equatable, Sendable {
        public var serial: UInt32
        public var outcome: Result<Drawn, ContentError>
        public init(serial: UInt32, _ outcome: Result<Drawn, ContentError>) { self.serial = serial; self.outcome = outcome }
        public init(serial: UInt32, error: ContentError) { self.init(serial: serial, .failure(error)) }
        public var error: ContentError? { if case .failure(let e) = outcome { return e } else { return nil } }
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
    /// 2: replies carry the page box and the transition (1 had only the outcome).
    public static let version: UInt8 = 2

    public static func encode(_ r: Request) -> [UInt8] {
        var w = Writer()
        w.u8(requestTag)
        w.u8(version)
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
        try r.version()
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
        w.u8(version)
        w.u32(r.serial)
        let e: ContentError
        switch r.outcome {
        case .success(let drawn):
            w.u8(0)
            w.rect(drawn.pageRect)
            w.transition(drawn.transition)
            return w.bytes
        case .failure(let error): e = error
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
        try r.version()
        let serial = try r.u32()
        let error: ContentError
        switch try r.u8() {
        case 0:
            let drawn = Drawn(pageRect: try r.rect(), transition: try r.transition())
            try r.end()
            return Reply(serial: serial, .success(drawn))
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
        mutating func rect(_ r: PixelRect) {
            for v in [r.x, r.y, r.width, r.height] { u32(UInt32(clamping: v)) }
        }
        /// A flag, then the style, duration, dimension, motion and angle.
        mutating func transition(_ t: PageTransition?) {
            guard let t else { return u8(0) }
            u8(1)
            u8(UInt8(PageTransition.Style.allCases.firstIndex(of: t.style) ?? 0))
            u64(t.duration.bitPattern)
            u8(t.dimension == .vertical ? 1 : 0)
            u8(t.motion == .outward ? 1 : 0)
            u32(UInt32(clamping: t.angle))
        }
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
        mutating func version() throws {
            let v = try u8()
            guard v == RenderWire.version else { throw Malformed(description: "render wire version \(v) (this is \(RenderWire.version))") }
        }
        /// A page box inside a frame no larger than `maxSide` on a side, not empty.
        mutating func rect() throws -> PixelRect {
            let x = Int(try u32()), y = Int(try u32()), w = Int(try u32()), h = Int(try u32())
            guard w >= 1, h >= 1, x + w <= RenderWire.maxSide, y + h <= RenderWire.maxSide else { throw Malformed(description: "page box \(w)x\(h)+\(x)+\(y) is out of range") }
            return PixelRect(x: x, y: y, width: w, height: h)
        }
        mutating func transition() throws -> PageTransition? {
            switch try u8() {
            case 0: return nil
            case 1: break
            case let f: throw Malformed(description: "transition flag \(f)")
            }
            let style = Int(try u8())
            guard style < PageTransition.Style.allCases.count else { throw Malformed(description: "unknown transition style \(style)") }
            let duration = Double(bitPattern: try u64())
            let dimension = try u8(), motion = try u8()
            guard dimension <= 1, motion <= 1 else { throw Malformed(description: "transition dimension \(dimension), motion \(motion)") }
            let angle = try u32()
            guard duration.isFinite, duration >= 0, angle < 360 else { throw Malformed(description: "transition \(duration) s at \(angle)°") }
            // The initialiser clamps the duration and keeps only the angles the PDF names.
            return PageTransition(
                style: PageTransition.Style.allCases[style], duration: duration, dimension: dimension == 1 ? .vertical : .horizontal,
                motion: motion == 1 ? .outward : .inward, angle: Int(angle))
        }
        mutating func string(max: Int) throws -> String {
            let lo = Int(try u8()), hi = Int(try u8())
            let n = lo | hi << 8
            guard n <= max else { throw Malformed(description: "a string of \(n) bytes (at most \(max))") }
            return String(decoding: try take(n), as: UTF8.self)
        }
        func end() throws { if at != bytes.count { throw Malformed(description: "\(bytes.count - at) bytes too many") } }
    }
}
