import Foundation

/// Finished output frames of pages, kept so a page turn to a page already seen or
/// prerendered needs no rendering, each with what its render reported (where the page sits,
/// its transition): a hit needs nothing else. Bounded by bytes; the least recently used goes
/// first. Thread-safe; the lock is held only for the dictionary, never across a render (the
/// display loop looks pages up itself).
public final class PageCache: @unchecked Sendable {
    public struct Key: Hashable, Sendable {
        public var content: String
        public var page: Int
        public var look: Look
        /// The part of the page drawn (the whole page but for beamer notes decks).
        public var part: PagePart
        public init(content: String, page: Int, look: Look, part: PagePart = .whole) {
            self.content = content; self.page = page; self.look = look; self.part = part
        }
    }

    /// Everything besides the page that changes the pixels of a frame.
    public struct Look: Hashable, Sendable {
        public var width: Int, height: Int
        public var background: RGB
        public var overscanPercent: Double
        public init(width: Int, height: Int, background: RGB, overscanPercent: Double) {
            self.width = width; self.height = height
            self.background = background; self.overscanPercent = overscanPercent
        }
    }

    public struct Stats: Equatable, Sendable {
        public var hits = 0, misses = 0, insertions = 0, evictions = 0
        public var entries = 0, bytes = 0
    }

    public let capacityBytes: Int
    private var entries: [Key: (page: RenderedPage, tick: UInt64)] = [:]
    private var tick: UInt64 = 0
    private var stats = Stats()
    private let lock = NSLock()

    public init(capacityBytes: Int) { self.capacityBytes = max(0, capacityBytes) }

    /// The page for `key`, counting a hit or a miss.
    public func lookup(_ key: Key) -> RenderedPage? {
        lock.lock(); defer { lock.unlock() }
        tick += 1
        if let e = entries[key] {
            entries[key] = (e.page, tick)
            stats.hits += 1
            return e.page
        }
        stats.misses += 1
        return nil
    }

    /// The page for `key` if it is cached, counting nothing and leaving its place in the
    /// eviction order (a look ahead, not a use).
    public func peek(_ key: Key) -> RenderedPage? {
        lock.lock(); defer { lock.unlock() }
        return entries[key]?.page
    }

    /// True when `key` is cached; counts nothing.
    public func contains(_ key: Key) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return entries[key] != nil
    }

    public func insert(_ page: RenderedPage, for key: Key) {
        lock.lock(); defer { lock.unlock() }
        guard page.frame.byteCount <= capacityBytes else { return }
        tick += 1
        if let old = entries[key] { stats.bytes -= old.page.frame.byteCount }
        entries[key] = (page, tick)
        stats.bytes += page.frame.byteCount
        stats.insertions += 1
        while stats.bytes > capacityBytes, let victim = entries.min(by: { $0.value.tick < $1.value.tick }) {
            entries[victim.key] = nil
            stats.bytes -= victim.value.page.frame.byteCount
            stats.evictions += 1
        }
        stats.entries = entries.count
    }

    /// Drops every page of `content` (a deleted upload).
    public func removeAll(content: String) {
        lock.lock(); defer { lock.unlock() }
        for k in entries.keys where k.content == content {
            stats.bytes -= entries[k]!.page.frame.byteCount
            entries[k] = nil
        }
        stats.entries = entries.count
    }

    public var statistics: Stats {
        lock.lock(); defer { lock.unlock() }
        return stats
    }
}
