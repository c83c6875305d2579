import Foundation
import LecternModel
import Synchronization

/// Finished output frames of pages, kept so a page turn to a page already seen or
/// prerendered needs no rendering, each with what its render reported (where the page sits,
/// its transition): a hit needs nothing else. Bounded by bytes; the least recently used goes
/// first. Thread-safe: its state is behind a `Mutex`, held only for the dictionary, never
/// across a render (the display loop looks pages up itself).
public final class PageCache: Sendable {
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
    private struct State {
        var entries: [Key: (page: RenderedPage, tick: UInt64)] = [:]
        var tick: UInt64 = 0
        var stats = Stats()
    }
    private let state = Mutex(State())

    public init(capacityBytes: Int) { self.capacityBytes = max(0, capacityBytes) }

    /// The page for `key`, counting a hit or a miss.
    public func lookup(_ key: Key) -> RenderedPage? {
        state.withLock { s in
            s.tick += 1
            if let e = s.entries[key] {
                s.entries[key] = (e.page, s.tick)
                s.stats.hits += 1
                return e.page
            }
            s.stats.misses += 1
            return nil
        }
    }

    /// The page for `key` if it is cached, counting nothing and leaving its place in the
    /// eviction order (a look ahead, not a use).
    public func peek(_ key: Key) -> RenderedPage? { state.withLock { $0.entries[key]?.page } }

    /// True when `key` is cached; counts nothing.
    public func contains(_ key: Key) -> Bool { state.withLock { $0.entries[key] != nil } }

    public func insert(_ page: RenderedPage, for key: Key) {
        let capacity = capacityBytes
        state.withLock { s in
            guard page.frame.byteCount <= capacity else { return }
            s.tick += 1
            if let old = s.entries[key] { s.stats.bytes -= old.page.frame.byteCount }
            s.entries[key] = (page, s.tick)
            s.stats.bytes += page.frame.byteCount
            s.stats.insertions += 1
            while s.stats.bytes > capacity, let victim = s.entries.min(by: { $0.value.tick < $1.value.tick }) {
                s.entries[victim.key] = nil
                s.stats.bytes -= victim.value.page.frame.byteCount
                s.stats.evictions += 1
            }
            s.stats.entries = s.entries.count
        }
    }

    /// Drops every page of `content` (a deleted upload).
    public func removeAll(content: String) {
        state.withLock { s in
            for k in s.entries.keys where k.content == content {
                s.stats.bytes -= s.entries[k]!.page.frame.byteCount
                s.entries[k] = nil
            }
            s.stats.entries = s.entries.count
        }
    }

    public var statistics: Stats { state.withLock { $0.stats } }
}
