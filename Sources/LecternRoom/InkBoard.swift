import LecternModel
import LecternProtocol

/// A page ink can go on: page `page` (from 1) of a PDF, by content id (hex), or of a
/// whiteboard (content `whiteboard`, page = the whiteboard's number).
public struct InkPageRef: Hashable, Sendable, Codable, Comparable {
    public var content: String
    public var page: Int
    public init(content: String, page: Int) { self.content = content; self.page = page }
    public static func < (a: Self, b: Self) -> Bool { (a.content, a.page) < (b.content, b.page) }
}

/// The room's ink: every page's strokes, the strokes in progress, who may draw and the
/// four drawer colours. Pure: the room asks it, it answers or throws a `LecternError`;
/// who counts as the holder or moderator is the caller's to say (`InkBoard.Who`).
///
/// Strokes are kept per page and stay when the page is turned away; the limits bound what
/// a flood of ink can cost (docs/protocol.md §22).
public struct InkBoard: Equatable, Sendable {
    public struct Limits: Equatable, Sendable {
        public var drawers = 4
        public var pointsPerStroke = 1000
        public var pointsPerMessage = 512
        public var strokesPerPage = 500
        public var pointsPerPage = 50_000
        public var totalPoints = 200_000
        public init() {}
    }

    /// What the caller knows of a device: whether it holds the floor (or drives it) or is
    /// the moderator (`lead`), and whether the room lets everyone draw.
    public struct Who: Equatable, Sendable {
        public var device: DeviceID
        public var lead: Bool
        public var everyoneDraws: Bool
        public init(device: DeviceID, lead: Bool, everyoneDraws: Bool = false) {
            self.device = device; self.lead = lead; self.everyoneDraws = everyoneDraws
        }
    }

    /// A stroke being drawn, not finished yet.
    public struct Open: Equatable, Sendable {
        public var page: InkPageRef
        public var stroke: InkStroke
    }

    public let limits: Limits
    public private(set) var pages: [InkPageRef: [InkStroke]] = [:]
    public private(set) var open: [DeviceID: Open] = [:]
    /// Devices the holder or moderator let draw.
    public private(set) var allowed: Set<DeviceID> = []
    /// Drawer colour slots: the device drawing in slot i's colour, or nil.
    public private(set) var slots: [DeviceID?]
    public private(set) var totalPoints = 0
    private var nextID: UInt32 = 1

    public init(limits: Limits = Limits()) {
        self.limits = limits
        slots = Array(repeating: nil, count: limits.drawers)
    }

    // MARK: questions

    public func mayDraw(_ w: Who) -> Bool { w.lead || w.everyoneDraws || allowed.contains(w.device) }

    /// Finished strokes of `page`, oldest first.
    public func strokes(on page: InkPageRef) -> [InkStroke] { pages[page] ?? [] }

    /// What the wall draws on `page`: its finished strokes, and those in progress on it.
    public func layer(for page: InkPageRef) -> InkLayer {
        InkLayer(strokes: strokes(on: page), live: open.sorted(by: { $0.key < $1.key }).filter { $0.value.page == page }.map(\.value.stroke))
    }

    public var strokeCount: Int { pages.values.reduce(0) { $0 + $1.count } }

    /// The drawer colour of `device`, if it has a slot.
    public func drawerColor(of device: DeviceID) -> RGB? {
        slots.firstIndex(of: device).map { InkPalette.drawerColor(slot: $0) }
    }

    // MARK: drawing

    /// Starts a stroke on `page`. A stroke the device still had open is finished first
    /// (nothing drawn is lost). `colorIndex` 0 is the device's drawer colour, 1…8 the palette.
    /// Returns the page whose ink changed if an open stroke was finished on another page.
    @discardableResult
    public mutating func begin(
        _ w: Who, on page: InkPageRef, tool: InkTool, width: InkWidth, colorIndex: UInt8, points: [InkPoint],
        stillDrawing: (DeviceID) -> Bool = { _ in true }
    ) throws(LecternError) -> InkStroke? {
        guard mayDraw(w) else { throw .notAllowedToDraw }
        let slot = try takeSlot(w.device, stillDrawing: stillDrawing)
        var finished: InkStroke?
        if open[w.device] != nil { finished = try? end(w.device, points: []) }
        try checkRoom(on: page, adding: points.count, newStroke: true)
        guard points.count <= limits.pointsPerStroke else { throw .strokeTooLong(limit: limits.pointsPerStroke) }
        let color = InkPalette.color(index: colorIndex) ?? InkPalette.drawerColor(slot: slot)
        let stroke = InkStroke(id: nextID, author: w.device, color: color, tool: tool, width: width, points: points)
        nextID &+= 1
        open[w.device] = Open(page: page, stroke: stroke)
        totalPoints += points.count
        return finished
    }

    /// More points of the device's open stroke; returns its page.
    @discardableResult
    public mutating func append(_ device: DeviceID, points: [InkPoint]) throws(LecternError) -> InkPageRef {
        guard var o = open[device] else { throw .noStroke }
        guard o.stroke.points.count + points.count <= limits.pointsPerStroke else { throw .strokeTooLong(limit: limits.pointsPerStroke) }
        try checkRoom(on: o.page, adding: points.count, newStroke: false)
        open[device] = nil   // keeps the points array unshared while it grows
        o.stroke.points.append(contentsOf: points)
        open[device] = o
        totalPoints += points.count
        return o.page
    }

    /// Finishes the device's open stroke with its last points; it joins its page's strokes.
    public mutating func end(_ device: DeviceID, points: [InkPoint]) throws(LecternError) -> InkStroke {
        if !points.isEmpty { try append(device, points: points) }
        guard let o = open.removeValue(forKey: device) else { throw .noStroke }
        if o.stroke.points.isEmpty { return o.stroke }   // nothing to keep
        pages[o.page, default: []].append(o.stroke)
        return o.stroke
    }

    /// The page of the device's open stroke.
    public func openPage(of device: DeviceID) -> InkPageRef? { open[device]?.page }

    // MARK: taking ink away

    /// Removes the device's newest finished stroke on `page`.
    public mutating func undo(_ device: DeviceID, on page: InkPageRef) throws(LecternError) -> InkStroke {
        guard var list = pages[page], let i = list.lastIndex(where: { $0.author == device }) else { throw .nothingToUndo }
        let s = list.remove(at: i)
        set(page, list)
        totalPoints -= s.points.count
        return s
    }

    /// Removes every finished stroke of the device on `page`; returns how many.
    public mutating func erase(_ device: DeviceID, on page: InkPageRef) throws(LecternError) -> Int {
        guard let list = pages[page] else { throw .nothingToUndo }
        let mine = list.filter { $0.author == device }
        guard !mine.isEmpty else { throw .nothingToUndo }
        totalPoints -= mine.reduce(0) { $0 + $1.points.count }
        set(page, list.filter { $0.author != device })
        return mine.count
    }

    /// Clears `page` (finished strokes and those in progress on it), by the holder or moderator.
    public mutating func clear(_ w: Who, page: InkPageRef) throws(LecternError) -> Int {
        guard w.lead else { throw .leadOnly }
        return drop { $0 == page }
    }

    /// Clears every page of `content`, by the holder or moderator.
    public mutating func clear(_ w: Who, deck content: String) throws(LecternError) -> Int {
        guard w.lead else { throw .leadOnly }
        return drop { $0.content == content }
    }

    /// Removes `page`'s ink (a live share's, when the share ends); returns the strokes removed.
    public mutating func remove(page: InkPageRef) -> Int { drop { $0 == page } }

    /// Lets `target` draw, or stops it (its strokes stay; an open one is finished), by the
    /// holder or moderator.
    public mutating func allow(_ w: Who, _ target: DeviceID, _ on: Bool) throws(LecternError) {
        guard w.lead else { throw .leadOnly }
        if on { allowed.insert(target) } else { allowed.remove(target) }
    }

    /// A device left the room: its open stroke is kept as it is, its permission and colour go.
    public mutating func forget(_ device: DeviceID) {
        if open[device] != nil { _ = try? end(device, points: []) }
        allowed.remove(device)
        if let i = slots.firstIndex(of: device) { slots[i] = nil }
    }

    // MARK: saving

    /// What survives a restart: finished strokes and who may draw.
    public struct Saved: Codable, Equatable, Sendable {
        public struct Page: Codable, Equatable, Sendable {
            public var content: String
            public var page: Int
            public var strokes: [InkStroke]
        }
        public var pages: [Page]
        public var allowed: [DeviceID]
        public var nextID: UInt32
    }

    public var saved: Saved {
        Saved(
            // A live share's ink goes with the share: never saved.
            pages: pages.keys.sorted().filter { !ShareInk.isShare($0.content) }.map { Saved.Page(content: $0.content, page: $0.page, strokes: pages[$0]!) },
            allowed: allowed.sorted(), nextID: nextID)
    }

    /// The board of an earlier run, within this run's limits (strokes past them are left out).
    public init(restoring s: Saved, limits: Limits = Limits()) {
        self.init(limits: limits)
        for p in s.pages {
            for stroke in p.strokes where stroke.points.count <= limits.pointsPerStroke {
                let ref = InkPageRef(content: p.content, page: p.page)
                guard (pages[ref]?.count ?? 0) < limits.strokesPerPage,
                    totalPoints + stroke.points.count <= limits.totalPoints,
                    pointCount(on: ref) + stroke.points.count <= limits.pointsPerPage
                else { continue }
                pages[ref, default: []].append(stroke)
                totalPoints += stroke.points.count
                nextID = max(nextID, stroke.id &+ 1)
            }
        }
        allowed = Set(s.allowed)
        nextID = max(nextID, s.nextID)
    }

    // MARK: private

    private func pointCount(on page: InkPageRef) -> Int {
        var n = (pages[page] ?? []).reduce(0) { $0 + $1.points.count }
        for o in open.values where o.page == page { n += o.stroke.points.count }
        return n
    }

    private func checkRoom(on page: InkPageRef, adding n: Int, newStroke: Bool) throws(LecternError) {
        if newStroke {
            let onPage = (pages[page]?.count ?? 0) + open.values.filter { $0.page == page }.count
            if onPage >= limits.strokesPerPage { throw .pageInkFull(strokes: limits.strokesPerPage, points: limits.pointsPerPage) }
        }
        if pointCount(on: page) + n > limits.pointsPerPage { throw .pageInkFull(strokes: limits.strokesPerPage, points: limits.pointsPerPage) }
        if totalPoints + n > limits.totalPoints { throw .roomInkFull(points: limits.totalPoints) }
    }

    /// The device's drawer slot: kept, or a free one, or one whose device no longer draws.
    private mutating func takeSlot(_ device: DeviceID, stillDrawing: (DeviceID) -> Bool) throws(LecternError) -> Int {
        if let i = slots.firstIndex(of: device) { return i }
        if let i = slots.firstIndex(where: { $0 == nil }) { slots[i] = device; return i }
        if let i = slots.firstIndex(where: { $0.map { open[$0] == nil && !stillDrawing($0) } ?? false }) {
            slots[i] = device
            return i
        }
        throw .tooManyDrawers(limit: limits.drawers)
    }

    private mutating func set(_ page: InkPageRef, _ list: [InkStroke]) { pages[page] = list.isEmpty ? nil : list }

    private mutating func drop(_ which: (InkPageRef) -> Bool) -> Int {
        var n = 0
        for key in pages.keys where which(key) {
            n += pages[key]!.count
            totalPoints -= pages[key]!.reduce(0) { $0 + $1.points.count }
            pages[key] = nil
        }
        for (d, o) in open where which(o.page) {
            totalPoints -= o.stroke.points.count
            open[d] = nil
        }
        return n
    }
}
