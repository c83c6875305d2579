import Dispatch
import Foundation
import LecternProtocol

/// Stores one upload's chunks in its part file off the room's loop: in order, on a serial
/// queue, and hashes them in order on a second one, so receiving the next chunk, hashing
/// and writing overlap.
///
/// Every chunk is reported when it is handled (written, or not: why), so the room's upload
/// ledger keeps what is queued bounded (its back-pressure); nothing here touches the
/// room's state.
///
/// Sendable unchecked, and why that holds: `firstFailure`, `queued` and `closed` are read and
/// written only with `lock` held; `hasher` only on `hashQueue` (and in `finish` after
/// `hashQueue.sync {}` drained it); `handle` only on `queue`; the rest are `let`s.
final class PartWriter: @unchecked Sendable {
    /// A chunk that came after the writer was closed or finished.
    struct Closed: Error, CustomStringConvertible { var description: String { "the upload's file was closed" } }

    private let queue: DispatchQueue
    /// Hashing runs beside the writes, on its own queue, in the same order.
    private let hashQueue: DispatchQueue
    private let handle: FileHandle
    private let lock = NSLock()
    private let hashing: Bool
    private var hasher: ContentHasher?   // used on hashQueue only (and in finish, after it drained)
    private var firstFailure: Error?
    private var queued = 0
    private var closed = false

    /// `hashing`: the upload starts at byte 0, so its SHA-256 is computed as it arrives
    /// (a resumed upload is hashed from the file at the end).
    init(handle: FileHandle, hashing: Bool, label: String) {
        self.handle = handle
        self.hashing = hashing
        self.hasher = hashing ? ContentHasher() : nil
        self.queue = DispatchQueue(label: "lectern.upload." + label, qos: .userInitiated)
        self.hashQueue = DispatchQueue(label: "lectern.upload-hash." + label, qos: .userInitiated)
    }

    /// The first write that failed, if any (later chunks are dropped).
    var failure: Error? { lock.withLock { firstFailure } }

    /// Bytes handed over and not yet written.
    var queuedBytes: Int { lock.withLock { queued } }

    /// Queues `data` to be hashed and appended; `done` runs on the writer's queue once it
    /// is handled: nil when it is in the file, else why not (this write failed, an earlier
    /// one did, or the writer was closed).
    func append(_ data: [UInt8], done: ((Error?) -> Void)? = nil) {
        lock.withLock { queued += data.count }
        if hashing { hashQueue.async { [self] in hasher?.update(data) } }
        queue.async { [self] in
            lock.lock()
            var failed: Error? = closed ? Closed() : firstFailure
            lock.unlock()
            if failed == nil {
                do { try handle.write(contentsOf: data) } catch { failed = error }
            }
            lock.lock()
            queued -= data.count
            if let failed, firstFailure == nil, !(failed is Closed) { firstFailure = failed }
            lock.unlock()
            done?(failed)
        }
    }

    /// After every queued chunk: fsync, close, and the SHA-256 of what was written (nil
    /// when this writer was not hashing). `done` runs on the writer's queue.
    func finish(_ done: @escaping (Result<ContentID?, Error>) -> Void) {
        queue.async { [self] in
            lock.lock()
            let failure = firstFailure
            let alreadyClosed = closed
            closed = true
            lock.unlock()
            if let failure { try? handle.close(); return done(.failure(failure)) }
            if alreadyClosed { return done(.failure(CocoaError(.fileWriteUnknown))) }
            do {
                try handle.synchronize()
                try handle.close()
                hashQueue.sync {}
                done(.success(hasher?.finalize()))
            } catch {
                done(.failure(error))
            }
        }
    }

    /// Closes the file after the queued chunks are written (the connection went away: what
    /// arrived is kept, and the upload resumes from it).
    func close() {
        queue.async { [self] in
            lock.lock()
            let wasClosed = closed
            closed = true
            lock.unlock()
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
