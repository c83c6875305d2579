import Foundation
import Synchronization
import LecternModel
import LecternSystem
import LecternRoom

/// `<data_dir>/state.json`: the saved `SavedState`, written atomically (temp file,
/// fsync, rename, fsync of the directory) after every change, in order, on its own queue
/// (off the event loop). Each save carries the generation of `DurableReplies`; once a
/// write is on disk, `onWritten` gets the newest generation it contains, and the replies
/// that waited for it go out (docs/protocol.md §14.4).
final class StateWriter: Sendable {
    private let queue = DispatchQueue(label: "lectern.state-writer")
    private let path: String
    private struct State {
        /// The state last written (read and written on `queue`).
        var last: SavedState?
        /// The newest state asked for and not yet written: a burst of changes (250 poll
        /// answers in a second) costs one write, of the newest state, not one each.
        var newest: (state: SavedState, generation: UInt64)?
        var onWritten: (@Sendable (_ generation: UInt64, _ error: Error?) -> Void)?
    }
    private let state = Mutex(State())
    /// Told on the writer's queue, after each write (or its failure: `error` non-nil),
    /// of the newest generation it held.
    var onWritten: (@Sendable (_ generation: UInt64, _ error: Error?) -> Void)? {
        get { state.withLock { $0.onWritten } }
        set { state.withLock { $0.onWritten = newValue } }
    }

    init(dataDir: String) { path = Self.path(dataDir: dataDir) }

    static func path(dataDir: String) -> String { dataDir + "/state.json" }

    /// What a start found in `state.json`.
    struct Loaded {
        var state: SavedState?
        /// The parts that could not be restored, each with why (logged).
        var lost: [SavedStateFile.Loss] = []
        /// Where a damaged file was kept (renamed aside, `state.json.damaged-<UTC time>`).
        var keptAside: String?
    }

    /// The state saved by an earlier run, part by part (SavedStateFile): a damaged file is
    /// renamed aside before anything overwrites it.
    static func load(dataDir: String, now: Date = Date()) -> Loaded {
        let path = path(dataDir: dataDir)
        guard let data = FileManager.default.contents(atPath: path) else { return Loaded() }
        let read = SavedStateFile.read(data)
        var loaded = Loaded(state: read.state, lost: read.lost)
        if read.damaged { loaded.keptAside = keepAside(path, now: now) }
        return loaded
    }

    /// Renames a damaged file to `<path>.damaged-<yyyyMMdd'T'HHmmss'Z'>` (a number after it
    /// if that name is taken); nil if it couldn't be renamed.
    static func keepAside(_ path: String, now: Date) -> String? {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let base = path + ".damaged-" + f.string(from: now)
        var name = base
        var n = 1
        while FileManager.default.fileExists(atPath: name) {
            n += 1
            name = base + "-\(n)"
        }
        guard rename(path, name) == 0 else { return nil }
        AtomicFile.fsync(directory: (path as NSString).deletingLastPathComponent)
        return name
    }

    func save(_ s: SavedState, generation: UInt64 = 0) {
        state.withLock { $0.newest = (s, generation) }
        queue.async { [self] in
            let (taken, last) = state.withLock { state in
                defer { state.newest = nil }
                return (state.newest, state.last)
            }
            guard let n = taken else { return }
            var failure: Error?
            if n.state != last {
                do {
                    try AtomicFile.write(try JSONEncoder().encode(n.state), to: path)
                    state.withLock { $0.last = n.state }
                } catch { failure = error }
            }
            onWritten?(n.generation, failure)
        }
    }

    /// Waits until every save asked for so far is on disk.
    func flush() { queue.sync {} }
}
