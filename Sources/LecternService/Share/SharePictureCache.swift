import LecternModel
import LecternProtocol
import Synchronization

/// The JPEGs of live shares' newest pictures, one a share and size (docs/protocol.md §29.8):
/// forty viewers following a share at the same width cost one encoding a picture, not forty.
/// An entry holds while its picture is the newest (it is matched by identity, held weakly).
final class SharePictureCache: Sendable {
    struct Key: Hashable, Sendable {
        var serial: Int
        var width: Int
        var height: Int
    }

    private struct Entry {
        weak var picture: Frame?
        var chunks: [ScreenshotChunk]
    }

    /// Entries kept at most (shares × sizes viewers ask for).
    static let capacity = 16
    private let entries = Mutex<[Key: Entry]>([:])

    /// The pieces of `picture` at `key`'s size, if encoded already.
    func chunks(_ key: Key, picture: Frame) -> [ScreenshotChunk]? {
        entries.withLock { e in
            guard let entry = e[key], entry.picture === picture else { return nil }
            return entry.chunks
        }
    }

    func keep(_ key: Key, picture: Frame, _ chunks: [ScreenshotChunk]) {
        entries.withLock { e in
            e[key] = Entry(picture: picture, chunks: chunks)
            if e.count > Self.capacity {
                for k in e.keys where e[k]?.picture == nil { e[k] = nil }
                while e.count > Self.capacity, let k = e.keys.first(where: { $0 != key }) { e[k] = nil }
            }
        }
    }
}
