import LecternModel

/// The pointer and ink messages (docs/protocol.md §22), carried in `Message.ink`. Points
/// travel as u16 pairs, 0…65535 across the page's visible box (`InkPoint`).
public enum InkMessage: Equatable, Sendable {
    /// 0x34: where the sender points now (`lifted`: the finger left the screen). No reply.
    case pointer(InkPoint, lifted: Bool)
    /// 0x35: a stroke starts with its first points. No reply (errors come back with its tag).
    case strokeBegin(StrokeBegin)
    /// 0x36: more points of the sender's stroke. No reply.
    case strokePoints([InkPoint])
    /// 0x37: the stroke's last points (maybe none); answered by stroke-ok.
    case strokeEnd([InkPoint])
    /// 0x70: the stroke was kept.
    case strokeOK(StrokeOK)
    /// 0x71: removes the sender's newest stroke on the page on screen; ok.
    case undo
    /// 0x72: removes all of the sender's strokes on the page on screen; ok.
    case erase
    /// 0x73: clears the page on screen, or every page of its deck (holder or moderator); ok.
    case clear(deck: Bool)
    /// 0x74: lets a device draw, or stops it (holder or moderator); ok.
    case allow(device: DeviceID, on: Bool)
    /// 0x75: asks for the strokes of a page (content id, page; page 0 of no content: the
    /// page on screen); answered by ink-page.
    case fetch(content: ContentID?, page: UInt32)
    /// 0x76: the finished strokes of a page, oldest first.
    case page([InkStroke])
    /// 0x77: shows a new whiteboard (a blank 16:9 page); present-ok.
    case whiteboard(black: Bool)

    public var command: Command {
        switch self {
        case .pointer: .pointer
        case .strokeBegin: .strokeBegin
        case .strokePoints: .strokePoints
        case .strokeEnd: .strokeEnd
        case .strokeOK: .strokeOK
        case .undo: .inkUndo
        case .erase: .inkErase
        case .clear: .inkClear
        case .allow: .inkAllow
        case .fetch: .inkFetch
        case .page: .inkPage
        case .whiteboard: .whiteboardNew
        }
    }

    /// Most points one message may carry.
    public static let maxPointsPerMessage = 512
    /// Most strokes an ink-page carries (the limit of strokes per page).
    public static let maxStrokesPerPage = 500
    public static let maxPointsPerStroke = 1000

    func encode(_ w: inout ByteWriter) {
        switch self {
        case .pointer(let p, let lifted):
            w.u8(lifted ? 1 : 0); w.u8(0); w.u16(p.x); w.u16(p.y)
        case .strokeBegin(let b):
            w.u8(b.tool.rawValue); w.u8(b.width.rawValue); w.u8(b.colorIndex); w.u8(0)
            Self.points(b.points, &w)
        case .strokePoints(let p), .strokeEnd(let p): Self.points(p, &w)
        case .strokeOK(let ok): w.u32(ok.strokeID); w.u16(ok.strokesOnPage)
        case .undo, .erase: break
        case .clear(let deck): w.u8(deck ? 2 : 1)
        case .allow(let d, let on): w.u8(d); w.u8(on ? 1 : 0)
        case .fetch(let c, let page): w.bytes(c?.bytes ?? [UInt8](repeating: 0, count: 32)); w.u32(page)
        case .page(let strokes):
            w.u16(UInt16(min(strokes.count, Self.maxStrokesPerPage)))
            for s in strokes.prefix(Self.maxStrokesPerPage) {
                w.u32(s.id); w.u8(s.author); w.u8(s.tool.rawValue); w.u8(s.width.rawValue)
                w.u8(s.color.r); w.u8(s.color.g); w.u8(s.color.b)
                let p = s.points.prefix(Self.maxPointsPerStroke)
                w.u16(UInt16(p.count))
                for q in p { w.u16(q.x); w.u16(q.y) }
            }
        case .whiteboard(let black): w.u8(black ? 1 : 0)
        }
    }

    static func decode(_ command: Command, _ r: inout ByteReader) throws -> InkMessage {
        switch command {
        case .pointer:
            let flags = try r.u8()
            _ = try r.u8()
            return .pointer(InkPoint(x: try r.u16(), y: try r.u16()), lifted: flags & 1 != 0)
        case .strokeBegin:
            let t = try r.u8(), wd = try r.u8(), c = try r.u8()
            _ = try r.u8()
            guard let tool = InkTool(rawValue: t) else { throw WireError.invalid("tool \(t) is not 1 (pen) or 2 (highlighter)") }
            guard let width = InkWidth(rawValue: wd) else { throw WireError.invalid("width \(wd) is not 1 (thin) or 2 (thick)") }
            guard c <= UInt8(InkPalette.colors.count) else { throw WireError.invalid("colour \(c) is not 0–\(InkPalette.colors.count)") }
            return .strokeBegin(StrokeBegin(tool: tool, width: width, colorIndex: c, points: try points(&r)))
        case .strokePoints: return .strokePoints(try points(&r))
        case .strokeEnd: return .strokeEnd(try points(&r))
        case .strokeOK: return .strokeOK(StrokeOK(strokeID: try r.u32(), strokesOnPage: try r.u16()))
        case .inkUndo: return .undo
        case .inkErase: return .erase
        case .inkClear:
            let s = try r.u8()
            guard s == 1 || s == 2 else { throw WireError.invalid("clear scope \(s) is not 1 (page) or 2 (deck)") }
            return .clear(deck: s == 2)
        case .inkAllow:
            let d = try r.u8()
            let on = try r.u8()
            guard on <= 1 else { throw WireError.invalid("allow \(on) is not 0 or 1") }
            return .allow(device: d, on: on == 1)
        case .inkFetch:
            let raw = try r.bytes(32)
            let page = try r.u32()
            return .fetch(content: raw.allSatisfy { $0 == 0 } ? nil : ContentID(bytes: raw), page: page)
        case .inkPage:
            let n = Int(try r.u16())
            guard n <= maxStrokesPerPage else { throw WireError.invalid("\(n) strokes is more than \(maxStrokesPerPage)") }
            var strokes: [InkStroke] = []
            for _ in 0..<n {
                let id = try r.u32(), author = try r.u8(), t = try r.u8(), wd = try r.u8()
                let color = RGB(try r.u8(), try r.u8(), try r.u8())
                let count = Int(try r.u16())
                guard count <= maxPointsPerStroke else { throw WireError.invalid("\(count) points is more than \(maxPointsPerStroke)") }
                var p: [InkPoint] = []
                p.reserveCapacity(count)
                for _ in 0..<count { p.append(InkPoint(x: try r.u16(), y: try r.u16())) }
                strokes.append(
                    InkStroke(
                        id: id, author: author, color: color, tool: InkTool(rawValue: t) ?? .pen,
                        width: InkWidth(rawValue: wd) ?? .thin, points: p))
            }
            return .page(strokes)
        case .whiteboardNew:
            let b = try r.u8()
            guard b <= 1 else { throw WireError.invalid("background \(b) is not 0 (white) or 1 (black)") }
            return .whiteboard(black: b == 1)
        default:
            throw WireError.invalid("not an ink message")
        }
    }

    static func points(_ p: [InkPoint], _ w: inout ByteWriter) {
        w.u16(UInt16(min(p.count, Int(UInt16.max))))
        for q in p { w.u16(q.x); w.u16(q.y) }
    }

    static func points(_ r: inout ByteReader) throws -> [InkPoint] {
        let n = Int(try r.u16())
        guard n <= maxPointsPerMessage else { throw WireError.invalid("\(n) points is more than \(maxPointsPerMessage) in one message") }
        var p: [InkPoint] = []
        p.reserveCapacity(n)
        for _ in 0..<n { p.append(InkPoint(x: try r.u16(), y: try r.u16())) }
        return p
    }
}

public struct StrokeBegin: Equatable, Sendable {
    public var tool: InkTool
    public var width: InkWidth
    /// 0: the sender's drawer colour; 1…8: `InkPalette.colors`.
    public var colorIndex: UInt8
    public var points: [InkPoint]
    public init(tool: InkTool = .pen, width: InkWidth = .thin, colorIndex: UInt8 = 0, points: [InkPoint] = []) {
        self.tool = tool; self.width = width; self.colorIndex = colorIndex; self.points = points
    }
}

public struct StrokeOK: Equatable, Sendable {
    public var strokeID: UInt32
    public var strokesOnPage: UInt16
    public init(strokeID: UInt32, strokesOnPage: UInt16) { self.strokeID = strokeID; self.strokesOnPage = strokesOnPage }
}

/// The `ink` object of the state: how much ink each page has, who draws in which colour
/// and who may draw (docs/protocol.md §22).
public struct InkSnapshot: Codable, Equatable, Sendable {
    public struct Page: Codable, Equatable, Sendable {
        public var content: String
        public var page: Int
        public var strokes: Int
        public init(content: String, page: Int, strokes: Int) { self.content = content; self.page = page; self.strokes = strokes }
    }
    public struct Drawer: Codable, Equatable, Sendable {
        public var device: DeviceID
        public var color: String
        public init(device: DeviceID, color: String) { self.device = device; self.color = color }
    }
    /// Pages with ink, by content then page.
    public var pages: [Page]
    /// Devices holding a drawer colour (at most four).
    public var drawers: [Drawer]
    /// Devices the holder or moderator let draw.
    public var allowed: [DeviceID]
    /// Whether every presenter may draw (config `ink_everyone`).
    public var everyone: Bool
    public var strokes: Int
    public var points: Int
    /// Where the page on screen sits on the output, as shares of its width and height (for
    /// mapping a touch on the live picture to page coordinates); null when no page is shown.
    public var box: Box?
    /// Whiteboards in the meeting: white ones, black ones (§22.8).
    public var whiteboards: [Int]

    public struct Box: Codable, Equatable, Sendable {
        public var x: Double, y: Double, width: Double, height: Double
        public init(x: Double, y: Double, width: Double, height: Double) { self.x = x; self.y = y; self.width = width; self.height = height }
    }

    public init(
        pages: [Page] = [], drawers: [Drawer] = [], allowed: [DeviceID] = [], everyone: Bool = false, strokes: Int = 0, points: Int = 0, box: Box? = nil,
        whiteboards: [Int] = [0, 0]
    ) {
        self.pages = pages; self.drawers = drawers; self.allowed = allowed; self.everyone = everyone
        self.strokes = strokes; self.points = points; self.box = box; self.whiteboards = whiteboards
    }

    enum CodingKeys: String, CodingKey { case pages, drawers, allowed, everyone, strokes, points, box, whiteboards }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(pages, forKey: .pages)
        try c.encode(drawers, forKey: .drawers)
        try c.encode(allowed, forKey: .allowed)
        try c.encode(everyone, forKey: .everyone)
        try c.encode(strokes, forKey: .strokes)
        try c.encode(points, forKey: .points)
        try c.encode(box, forKey: .box)   // null when no page is shown
        try c.encode(whiteboards, forKey: .whiteboards)
    }
}
