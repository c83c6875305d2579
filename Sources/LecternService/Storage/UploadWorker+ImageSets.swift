import Foundation
import LecternModel
import LecternProtocol
import LecternRoom

/// Image sets (docs/protocol.md §30.9): the room's list of images chosen together, stored
/// as the original of the deck they become, off the event loop.
extension UploadWorker {
    func storeImageSet(_ id: ConnectionID, tag: UInt16, _ set: ImageSetToStore) {
        work.async { [self] in
            let hex = set.content.hex
            let result: Result<ContentEntry, LecternError>
            if let existing = store.item(hex) {
                result = .success(ContentEntry(existing))
            } else {
                let tmp = store.directory.appendingPathComponent(".\(hex).\(UUID().uuidString).tmp").path
                defer { unlink(tmp) }
                do {
                    try Data(set.bytes).write(to: URL(fileURLWithPath: tmp))
                    try FileManager.default.setAttributes(ContentStore.ownerOnly, ofItemAtPath: tmp)
                    let item = try store.storeOriginal(tmpFile: tmp, id: hex, name: set.name, uploader: set.uploader, format: ImageSet.format)
                    result = .success(ContentEntry(item))
                } catch {
                    result = .failure(.storageFailed)
                }
            }
            report(.imageSetStored(id, tag: tag, set, result))
        }
    }
}
