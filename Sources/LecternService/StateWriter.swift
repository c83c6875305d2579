import Foundation
import LecternCore
import LecternRoom

/// `<data_dir>/state.json`: the saved `SavedState`, written atomically (temp file,
/// fsync, rename) after every change, in order, on its own queue (off the event loop).
final class StateWriter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "lectern.state-writer")
    private let path: String
    private var last: SavedState?
    /// The newest state asked for and not yet written: a burst of changes (250 poll
    /// answers in a second) costs one write, of the newest state, not one each.
    private var newest: SavedState?
    private let lock = NSLock()

    init(dataDir: String) { path = Self.path(dataDir: dataDir) }

    static func path(dataDir: String) -> String { dataDir + "/state.json" }

    /// The state saved by an earlier run, if any.
    static func load(dataDir: String) -> SavedState? {
        guard let data = FileManager.default.contents(atPath: path(dataDir: dataDir)) else { return nil }
        return try? JSONDecoder().decode(SavedState.self, from: data)
    }

    func save(_ s: SavedState) {
        lock.withLock { newest = s }
        queue.async { [self] in
            guard
                let s = lock.withLock({ () -> SavedState? in
                    defer { newest = nil }; return newest
                })
            else { return }
            guard s != last, let data = try? JSONEncoder().encode(s) else { return }
            do { try AtomicFile.write(data, to: path); last = s } catch {}
        }
    }

    /// Waits until every save asked for so far is on disk.
    func flush() { queue.sync {} }
}
