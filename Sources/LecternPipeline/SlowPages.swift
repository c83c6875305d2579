import Foundation
import LecternModel
import LecternSystem
import Synchronization

/// Pages that overran the render budget or the renderer's limits: never rendered again,
/// never prerendered. Kept in a file of the data directory (`slow-pages`), so a restart
/// (the watchdog's, a power cut's) doesn't try the poison page again; owner-only, and
/// bounded: the oldest of more than `capacity` pages is forgotten (it would be tried,
/// and given up, once more).
///
/// The file: one page a line, `<content id> <page>` (too slow) or `<content id> <page>
/// <megabytes>` (over the renderer's memory), oldest first.
public final class SlowPages: Sendable {
    public struct Page: Hashable, Sendable {
        public let content: String
        public let page: Int
        public init(content: String, page: Int) { self.content = content; self.page = page }
    }

    public let capacity: Int
    /// nil: kept in memory only (`lectern render`, tests of the pipeline).
    public let file: String?
    /// The pages, oldest first, and why each is there.
    private struct List {
        var order: [Page] = []
        var known: [Page: Reason] = [:]

        mutating func trim(to capacity: Int) {
            while order.count > capacity { known[order.removeFirst()] = nil }
        }
    }
    private let list: Mutex<List>

    /// Why a page is on the list: what its presenter is told when it is asked for again.
    public enum Reason: Equatable, Sendable {
        case slow
        case memory(megabytes: Int)
    }

    public init(file: String? = nil, capacity: Int = 256) {
        self.capacity = max(1, capacity)
        self.file = file
        var list = List()
        if let file, let data = FileManager.default.contents(atPath: file), data.count <= Self.maxFileBytes {
            for (page, reason) in Self.decode(String(decoding: data, as: UTF8.self)) where list.known[page] == nil {
                list.order.append(page)
                list.known[page] = reason
            }
            list.trim(to: self.capacity)
        }
        self.list = Mutex(list)
    }

    /// The longest file read back (a file grown by hand beyond it is ignored).
    static let maxFileBytes = 1 << 20

    public func contains(content: String, page: Int) -> Bool {
        list.withLock { $0.known[Page(content: content, page: page)] != nil }
    }

    public func reason(content: String, page: Int) -> Reason? {
        list.withLock { $0.known[Page(content: content, page: page)] }
    }

    public var all: [Page] { list.withLock { $0.order } }

    /// Marks a page slow (and saves the list).
    public func insert(content: String, page: Int, reason: Reason = .slow) {
        let p = Page(content: content, page: page)
        let capacity = self.capacity
        let text: String? = list.withLock { list in
            guard list.known[p] == nil else { return nil }
            list.order.append(p)
            list.known[p] = reason
            list.trim(to: capacity)
            return Self.encode(list.order.map { ($0, list.known[$0] ?? .slow) })
        }
        if let text, let file { save(text, to: file) }
    }

    // MARK: the file (pure)

    static func encode(_ pages: [(Page, Reason)]) -> String {
        pages.map { p, r in
            if case .memory(let mb) = r { return "\(p.content) \(p.page) \(mb)\n" }
            return "\(p.content) \(p.page)\n"
        }.joined()
    }

    /// The pages of a file's text; lines that aren't `<64 hex> <page>` are skipped.
    static func decode(_ text: String) -> [(Page, Reason)] {
        text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 2 || parts.count == 3, parts[0].count == 64, parts[0].allSatisfy({ $0.isHexDigit && !$0.isUppercase }),
                let page = Int(parts[1]), page >= 1
            else { return nil }
            var reason = Reason.slow
            if parts.count == 3 {
                guard let mb = Int(parts[2]), mb > 0 else { return nil }
                reason = .memory(megabytes: mb)
            }
            return (Page(content: String(parts[0]), page: page), reason)
        }
    }

    /// Through `AtomicFile` (owner-only, fsync, rename): a power cut keeps the old list or the new.
    private func save(_ text: String, to file: String) {
        try? AtomicFile.write(Data(text.utf8), to: file)
    }
}
