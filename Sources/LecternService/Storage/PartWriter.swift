import Dispatch
import Foundation
import LecternProtocol
import Synchronization

/// Stores one upload's chunks in its part file off the room's loop: in order, on a serial
/// queue, and hashes them in order on a second one, so receiving the next chunk, hashing
/// and writing overlap.
///
/// Every chunk is reported when it is handled (written, or not: why), so the room's upload
/// ledger keeps what is queued bounded (its back-pressure); nothing here touches the
/// room's state. Its state is behind `Mutex`es; the writes on `queue`, the hashing on
/// `hashQueue`.
final class PartWriter: Sendable {
    /// A chunk that came after the writer was closed or finished.
    struct Closed: Error, CustomStringConvertible { var description: String { "the upload's file was closed" } }

    private let queue: DispatchQueue
    /// Hashing runs beside the writes, on its own queue, in the same order.
    private let hashQueue: DispatchQueue
    private let handle: FileHandle
    private let hashing: Bool
    /// Used on `hashQueue` only (and in `finish`, after it drained): the lock is never contended.
    private let hasher: Mutex<ContentHasher?>
    private struct State {
        var firstFailure: Error?
        var queued = 0
        var closed = false
    }
    private let state = Mutex(State())

    /// `hashing`: the upload starts at byte 0, so its SHA-256 is computed as it arrives
    /// (a resumed upload is hashed from the file at the end).
    init(handle: FileHandle, hashing: Bool, label: String) {
        self.handle = handle
        self.hashing = hashing
        self.hasher = Mutex(hashing ? ContentHasher() : nil)
        self.queue = DispatchQueue(label: "lectern.upload." + label, qos: .userInitiated)
        self.hashQueue = DispatchQueue(label: "lectern.upload-hash." + label, qos: .userInitiated)
    }

    /// The first write that failed, if any (later chunks are dropped).
    var failure: Error? { state.withLock { $0.firstFailure } }

    /// Bytes handed over and not yet written.
    var queuedBytes: Int { state.withLock { $0.queued } }

    /// Queues `data` to be hashed and appended; `done` runs on the writer's queue once it
    /// is handled: nil when it is in the file, else why not (this write failed, an earlier
    /// one did, or the writer was closed).
    func append(_ data: [UInt8], done: (@Sendable (Error?) -> Void)? = nil) {
        state.withLock { $0.queued += data.count }
        if hashing { hashQueue.async { [self] in hasher.withLock { $0?.update(data) } } }
        queue.async { [self] in
            var failed: Error? = state.withLock { $0.closed ? Closed() : $0.firstFailure }
            if failed == nil {
                do { try handle.write(contentsOf: data) } catch { failed = error }
            }
            state.withLock { [failed] s in
                s.queued -= data.count
                if let failed, s.firstFailure == nil, !(failed is Closed) { s.firstFailure = failed }
            }
            done?(failed)
        }
    }

    /// After every queued chunk: fsync, close, and the SHA-256 of what was written (nil
    /// when this writer was not hashing). `done` runs on the writer's queue.
    func finish(_ done: @escaping @Sendable (Result<ContentID?, Error>) -> Void) {
        queue.async { [self] in
            let (failure, alreadyClosed) = state.withLock { s in
                defer { s.closed = true }
                return (s.firstFailure, s.closed)
            }
            if let failure { try? handle.close(); return done(.failure(failure)) }
            if alreadyClosed { return done(.failure(CocoaError(.fileWriteUnknown))) }
            do {
                try handle.synchronize()
                try handle.close()
                hashQueue.sync {}
                done(.success(hasher.withLock { $0?.finalize() }))
            } catch {
                done(.failure(error))
            }
        }
    }

    /// Closes the file after the queued chunks are written (the connection went away: what
    /// arrived is kept, and the upload resumes from it).
    func close() {
        queue.async { [self] in
            let wasClosed = state.withLock { s in
                defer { s.closed = true }
                return s.closed
            }
            if !wasClosed { try? handle.close() }
        }
    }

    /// Returns once every chunk queued so far is written (the file stays open).
    func waitForQueued() { queue.sync {} }

    /// Returns once every queued chunk is written and the file is closed.
    func closeAndWait() {
        close()
        queue.sync {}
    }
}
