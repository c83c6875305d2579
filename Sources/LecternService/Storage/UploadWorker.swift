import Dispatch
import Foundation
import LecternConvert
import LecternModel
import LecternProtocol
import LecternRoom
import LecternVideo
import Synchronization

/// The room's file work for uploads, off the event loop: part files and their writers,
/// possession proofs streamed from the stored file, and a finished upload verified and
/// moved into the content store. Each finished job comes back as a `RoomEvent`.
final class UploadWorker: Sendable {
    let area: UploadArea
    let store: ContentStore
    /// What an upload that is neither a PDF nor a clip may be converted by (§30).
    let converters: DeckConverters
    let report: @Sendable (RoomEvent) -> Void
    let work = DispatchQueue(label: "lectern.room.uploads", qos: .userInitiated, attributes: .concurrent)
    /// Each open upload's writer, by its serial.
    private let writers = Mutex<[Int: PartWriter]>([:])

    init(area: UploadArea, store: ContentStore, converters: DeckConverters = .none, report: @escaping @Sendable (RoomEvent) -> Void) {
        self.area = area
        self.store = store
        self.converters = converters
        self.report = report
    }

    /// Opens the part file (quick: on the caller's thread, so the reply keeps its order).
    func openPart(_ content: ContentID, writer id: Int, offset: UInt64, hashing: Bool) {
        do {
            let handle = try area.open(content.hex, at: offset)
            let writer = PartWriter(handle: handle, hashing: hashing, label: String(content.hex.prefix(12)))
            writers.withLock { $0[id] = writer }
            report(.partOpened(content, writer: id, failure: nil))
        } catch {
            report(.partOpened(content, writer: id, failure: "\(error)"))
        }
    }

    func writeChunk(_ content: ContentID, writer id: Int, _ data: [UInt8]) {
        guard let writer = writers.withLock({ $0[id] }) else {
            return report(.chunkWritten(content, writer: id, bytes: data.count, failure: "no writer"))
        }
        let report = self.report, count = data.count
        writer.append(data) { error in
            report(.chunkWritten(content, writer: id, bytes: count, failure: error.map { "\($0)" }))
        }
    }

    /// What arrived is kept: the file is closed once the queued chunks are written.
    func closePart(_ content: ContentID, writer id: Int) {
        let writer = writers.withLock { $0.removeValue(forKey: id) }
        work.async { [self] in
            writer?.closeAndWait()
            report(.partClosed(content, writer: id, size: area.storedBytes(content.hex)))
        }
    }

    /// HMAC of the stored file with the connection's challenge, read a piece at a time.
    func checkProof(_ conn: ConnectionID, tag: UInt16, _ begin: UploadBegin, challenge: [UInt8]) {
        let path = store.path(of: begin.content.hex)
        work.async { [self] in
            var matches = false
            if let proof = begin.proof, let h = FileHandle(forReadingAtPath: path) {
                var p = PossessionProof(challenge: challenge)
                while let chunk = try? h.read(upToCount: 1 << 20), !chunk.isEmpty { p.update(chunk) }
                try? h.close()
                matches = PossessionProof.matches(proof, expected: p.finalize())
            }
            report(.proofChecked(conn, tag: tag, begin, matches: matches))
        }
    }

    /// After the last chunk: the SHA-256 must be the content id, the file of the kind
    /// announced and one that opens (a PDF) or plays (a clip); then it is in the store.
    func finish(_ conn: ConnectionID, tag: UInt16, writer id: Int, _ upload: UploadToStore) {
        guard let writer = writers.withLock({ $0.removeValue(forKey: id) }) else {
            let refusal = UploadRefusal(.storageFailed, discarded: false, detail: "its writer was closed")
            return report(.uploadFinished(conn, tag: tag, writer: id, upload, .failure(refusal)))
        }
        writer.finish { [self] written in
            report(.uploadFinished(conn, tag: tag, writer: id, upload, store(upload, written: written)))
        }
    }

    private func store(_ upload: UploadToStore, written: Result<ContentID?, Error>) -> Result<ContentEntry, UploadRefusal> {
        let hex = upload.content.hex
        do {
            let actual = try written.get()?.hex ?? area.sha256(hex)
            if actual != hex {
                area.remove(hex)
                return .failure(UploadRefusal(.hashMismatch, discarded: true, detail: nil))
            }
            if let existing = store.item(hex) {
                area.remove(hex)   // the store already has it: keep one copy
                return .success(ContentEntry(existing))
            }
            if let (converter, format) = convertible(area.partPath(hex), name: upload.name) {
                // Stored as it came; the room converts it and answers once its PDF exists (§30).
                if let why = converter.unavailable {
                    area.remove(hex)
                    return .failure(UploadRefusal(.conversionUnavailable(format.what), discarded: true, detail: why))
                }
                if upload.announcedKind == .clip {
                    area.remove(hex)
                    return .failure(UploadRefusal(LecternError(.unsupportedFileType, message: "The file is not a clip."), discarded: true, detail: nil))
                }
                let item = try store.storeOriginal(tmpFile: area.partPath(hex), id: hex, name: upload.name, uploader: upload.uploader, format: format.id)
                return .success(ContentEntry(item))
            }
            let kind = try store.kind(ofFile: area.partPath(hex), name: upload.name)
            if let wanted = upload.announcedKind, (wanted == .pdf) != (kind == .pdf) {
                area.remove(hex)
                let e = LecternError(.unsupportedFileType, message: "The file is not a \(wanted == .pdf ? "PDF" : "clip").")
                return .failure(UploadRefusal(e, discarded: true, detail: nil))
            }
            var durationMs: UInt32?
            if kind == .clip {   // refuses what can't play, saying why
                durationMs = try ContentStore.clipDurationMs(area.partPath(hex))
            }
            return .success(
                ContentEntry(
                    try store.adopt(
                        tmpFile: area.partPath(hex), id: hex, name: upload.name,
                        uploader: upload.uploader, durationMs: durationMs)))
        } catch let e as ContentError {
            area.remove(hex)
            return .failure(UploadRefusal(LecternError(mapping: e), discarded: true, detail: e.description))
        } catch let e as LecternError {
            return .failure(UploadRefusal(e, discarded: false, detail: nil))
        } catch {
            return .failure(UploadRefusal(.storageFailed, discarded: false, detail: "\(error)"))
        }
    }

    /// The converter and format of a file that is neither a PDF (a `%PDF-` header) nor a
    /// clip by its first bytes, when a converter knows it by its content; else nil (the
    /// store's own checks decide then).
    private func convertible(_ path: String, name: String) -> (any DeckConverter, SourceFormat)? {
        // An image set is the room's own (images-deck, §30.9), never an upload.
        guard !converters.all.isEmpty, let sniff = try? FileSniff(path: path, name: name), !ImageSet.starts(sniff.head) else { return nil }
        let head = Data(sniff.head.prefix(1024))
        if head.range(of: Data("%PDF-".utf8)) != nil || ContentStore.isClipSignature(Array(head)) { return nil }
        return converters.detect(sniff)
    }
}
