import Crypto
import Foundation
import LecternModel
import LecternProtocol

/// Partial uploads, under `<data_dir>/uploads/<sha256>.part`, kept across connections and
/// restarts until complete, so an upload resumes from the last stored byte. A complete one
/// is verified and moved into the `ContentStore` (same file system, so the move is a rename).
final class UploadArea: Sendable {
    let directory: URL

    init(dataDir: String) throws {
        directory = URL(fileURLWithPath: dataDir).appendingPathComponent("uploads")
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true,
            attributes: ContentStore.ownerOnlyDirectory)
        removeStale()
    }

    /// Partial uploads that made no progress for a day are given up (docs/protocol.md 12.1).
    func removeStale(olderThan seconds: Double = 24 * 3600) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for n in names where n.hasSuffix(".part") {
            let p = directory.appendingPathComponent(n).path
            if let m = (try? FileManager.default.attributesOfItem(atPath: p))?[.modificationDate] as? Date,
                Date().timeIntervalSince(m) > seconds
            {
                try? FileManager.default.removeItem(atPath: p)
            }
        }
    }

    func partPath(_ hex: String) -> String { directory.appendingPathComponent(hex + ".part").path }

    /// Bytes stored so far for `hex` (0 when nothing).
    func storedBytes(_ hex: String) -> UInt64 {
        let attrs = try? FileManager.default.attributesOfItem(atPath: partPath(hex))
        return (attrs?[.size] as? NSNumber)?.uint64Value ?? 0
    }

    /// Opens the part file for appending at `offset` (truncating anything beyond it).
    func open(_ hex: String, at offset: UInt64) throws -> FileHandle {
        let path = partPath(hex)
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: ContentStore.ownerOnly) else {
                throw ContentError.unreadable(path: path, reason: "can't create")
            }
        }
        let h = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try h.truncate(atOffset: offset)
        try h.seek(toOffset: offset)
        return h
    }

    func remove(_ hex: String) { try? FileManager.default.removeItem(atPath: partPath(hex)) }

    /// SHA-256 of the part file, streamed.
    func sha256(_ hex: String) throws -> String { try ContentStore.sha256(ofFile: partPath(hex)) }

    /// Bytes stored so far of every partial upload, by content id.
    func parts() -> [ContentID: UInt64] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var out: [ContentID: UInt64] = [:]
        for n in names where n.hasSuffix(".part") {
            if let id = ContentID(hex: String(n.dropLast(5))) { out[id] = storedBytes(id.hex) }
        }
        return out
    }

    static func bytes(in dir: String) -> UInt64 {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.reduce(0) { sum, n in
            let a = try? FileManager.default.attributesOfItem(atPath: dir + "/" + n)
            return sum + ((a?[.size] as? NSNumber)?.uint64Value ?? 0)
        }
    }
}
