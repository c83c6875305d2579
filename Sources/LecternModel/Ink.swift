/// Ink on a page: strokes and pointers in page coordinates (0…1 of the page's visible box,
/// x to the right, y down), so they land on the same spot of the page whatever the output's
/// mode, letterbox or overscan. What the room keeps and what the wall draws
/// (docs/protocol.md §22).

/// A point of a stroke or a pointer, in 1/65535ths of the page's visible box (0 = left or
/// top edge, 65535 = right or bottom edge): exactly what travels on the wire, 4 bytes.
public struct InkPoint: Equatable, Hashable, Sendable, Codable {
    public var x: UInt16
    public var y: UInt16
    public init(x: UInt16, y: UInt16) { self.x = x; self.y = y }
    /// From page coordinates 0…1 (clamped; NaN counts as 0).
    public init(px: Double, py: Double) {
        func q(_ v: Double) -> UInt16 { v.isNaN ? 0 : UInt16((min(1, max(0, v)) * 65535).rounded()) }
        x = q(px); y = q(py)
    }
    public var px: Double { Double(x) / 65535 }
    public var py: Double { Double(y) / 65535 }
}

/// Pen (opaque) or highlighter (translucent and wide).
public enum InkTool: UInt8, Sendable, Codable, CaseIterable {
    case pen = 1
    case highlighter = 2
}

/// The two widths a pen comes in.
public enum InkWidth: UInt8, Sendable, Codable, CaseIterable {
    case thin = 1
    case thick = 2
}

/// The colours ink comes in: the Okabe–Ito palette, told apart by people with the common
/// colour-vision deficiencies. 0 on the wire means "my colour" (the author's drawer colour).
public enum InkPalette {
    public static let colors: [RGB] = [
        RGB(213, 94, 0),   // 1 vermillion
        RGB(0, 114, 178),   // 2 blue
        RGB(0, 158, 115),   // 3 bluish green
        RGB(204, 121, 167),   // 4 reddish purple
        RGB(230, 159, 0),   // 5 orange
        RGB(86, 180, 233),   // 6 sky blue
        RGB(240, 228, 66),   // 7 yellow
        RGB(0, 0, 0),   // 8 black
    ]
    /// The colour of drawer slot `slot` (0…3): the first four of the palette, one per drawer.
    public static func drawerColor(slot: Int) -> RGB { colors[slot % 4] }
    /// Palette entry `index` (1…8), nil otherwise.
    public static func color(index: UInt8) -> RGB? {
        index >= 1 && Int(index) <= colors.count ? colors[Int(index) - 1] : nil
    }
    /// The pointer's dot: a saturated red with a white ring, visible on dark and light pages.
    public static let pointer = RGB(255, 32, 32)
}

/// One stroke: who drew it, how, and the points sampled along it.
public struct InkStroke: Equatable, Sendable, Codable {
    public var id: UInt32
    public var author: UInt8
    public var color: RGB
    public var tool: InkTool
    public var width: InkWidth
    public var points: [InkPoint]

    public init(id: UInt32, author: UInt8, color: RGB, tool: InkTool, width: InkWidth, points: [InkPoint]) {
        self.id = id; self.author = author; self.color = color
        self.tool = tool; self.width = width; self.points = points
    }

    /// Line width as a share of the page box's height: scales with the page, so a stroke
    /// looks the same on every mode.
    public var relativeWidth: Double {
        switch (tool, width) {
        case (.pen, .thin): 0.004
        case (.pen, .thick): 0.009
        case (.highlighter, .thin): 0.022
        case (.highlighter, .thick): 0.036
        }
    }
    /// Opacity: the highlighter lets the page show through.
    public var alpha: Double { tool == .highlighter ? 0.35 : 1 }

    // Saved compactly: the points as one flat list x, y, x, y, … (the state file holds up
    // to 200,000 of them).
    enum CodingKeys: String, CodingKey { case id, author, color, tool, width, points }
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(UInt32.self, forKey: .id)
        author = try c.decode(UInt8.self, forKey: .author)
        color = try c.decode(RGB.self, forKey: .color)
        tool = try c.decode(InkTool.self, forKey: .tool)
        width = try c.decode(InkWidth.self, forKey: .width)
        let flat = try c.decode([UInt16].self, forKey: .points)
        guard flat.count % 2 == 0 else {
            throw DecodingError.dataCorruptedError(forKey: .points, in: c, debugDescription: "an odd number of coordinates")
        }
        points = stride(from: 0, to: flat.count, by: 2).map { InkPoint(x: flat[$0], y: flat[$0 + 1]) }
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(author, forKey: .author)
        try c.encode(color, forKey: .color)
        try c.encode(tool, forKey: .tool)
        try c.encode(width, forKey: .width)
        var flat: [UInt16] = []
        flat.reserveCapacity(points.count * 2)
        for p in points { flat.append(p.x); flat.append(p.y) }
        try c.encode(flat, forKey: .points)
    }
}

extension RGB: Codable {
    public init(from decoder: Decoder) throws {
        let s = try decoder.singleValueContainer().decode(String.self)
        guard let c = RGB(parsing: s) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a colour: \(s)"))
        }
        self = c
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}

/// A pointer as the wall draws it: the newest position, the recent ones (the trail), and
/// whether the finger lifted (then it fades out).
public struct InkPointerTrace: Equatable, Sendable {
    /// Positions with their monotonic times, oldest first; the last is the dot.
    public var samples: [(point: InkPoint, at: Double)]
    /// When the finger lifted, if it did.
    public var liftedAt: Double?

    public init(samples: [(point: InkPoint, at: Double)] = [], liftedAt: Double? = nil) {
        self.samples = samples; self.liftedAt = liftedAt
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.liftedAt == b.liftedAt && a.samples.count == b.samples.count
            && zip(a.samples, b.samples).allSatisfy { $0.point == $1.point && $0.at == $1.at }
    }

    /// How long the trail is, and how long the dot stays after a lift.
    public static let trailSeconds = 0.25
    public static let fadeSeconds = 0.6
    /// A pointer that hasn't moved for this long disappears even without a lift (a phone
    /// that went to sleep mid-gesture).
    public static let idleSeconds = 10.0
    public static let maxSamples = 16

    /// Adds the newest position (old trail samples drop off).
    public mutating func move(to p: InkPoint, at t: Double) {
        samples.append((p, t))
        liftedAt = nil
        prune(now: t)
    }

    public mutating func lift(at t: Double) { if liftedAt == nil { liftedAt = t } }

    mutating func prune(now: Double) {
        let keepLast = samples.count - 1
        samples = samples.enumerated().filter { $0.offset == keepLast || now - $0.element.at <= Self.trailSeconds }.map(\.element)
        if samples.count > Self.maxSamples { samples.removeFirst(samples.count - Self.maxSamples) }
    }

    /// The dot's opacity at `now`: 1 while held, falling to 0 over `fadeSeconds` after a lift.
    public func opacity(now: Double) -> Double {
        guard let last = samples.last else { return 0 }
        if let l = liftedAt { return max(0, 1 - (now - l) / Self.fadeSeconds) }
        return now - last.at > Self.idleSeconds ? 0 : 1
    }

    /// Whether anything of it is still to be drawn at `now`.
    public func visible(now: Double) -> Bool { opacity(now: now) > 0 }

    /// Whether the picture still changes after `now` without new input (fading or trail).
    public func animating(now: Double) -> Bool {
        guard visible(now: now) else { return false }
        if liftedAt != nil { return true }
        guard let first = samples.first else { return false }
        return samples.count > 1 && now - first.at <= Self.trailSeconds
    }

    /// Trail samples still within the trail's time at `now`, oldest first, with their opacity.
    public func trail(now: Double) -> [(point: InkPoint, alpha: Double)] {
        let o = opacity(now: now)
        let lastIndex = samples.count - 1
        return samples.enumerated().compactMap { i, s in
            let age = now - s.at
            if i == lastIndex { return (s.point, o) }
            guard age <= Self.trailSeconds else { return nil }
            return (s.point, o * (1 - age / Self.trailSeconds))
        }
    }
}

/// What the wall draws over a page frame: the page's finished strokes (drawn once and kept
/// with the frame) and those in progress (drawn again at every refresh while they grow).
/// Empty: the page frame is presented as it is.
public struct InkLayer: Equatable, Sendable {
    public var strokes: [InkStroke]
    public var live: [InkStroke]
    public init(strokes: [InkStroke] = [], live: [InkStroke] = []) { self.strokes = strokes; self.live = live }
    public var isEmpty: Bool { strokes.isEmpty && live.isEmpty }
}
