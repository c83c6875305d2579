import Foundation
import LecternModel
import LecternSystem
import LecternRoom
import Logging

extension Service {
    /// At start, before anything is written: the temp files a killed run left are removed,
    /// and `state.json` is read back part by part; a damaged file is kept aside (renamed
    /// with the time) and each part lost is logged with why (docs/protocol.md §14.4).
    static func loadSavedState(_ config: Config, store: ContentStore, logger: Logger) -> SavedState? {
        for dir in [config.dataDir, store.directory.path] {
            let removed = AtomicFile.removeLeftovers(in: dir)
            if !removed.isEmpty { logger.info("removed \(removed.count) temp file(s) a stopped run left in \(dir): \(removed.joined(separator: ", "))") }
        }
        let loaded = StateWriter.load(dataDir: config.dataDir)
        if !loaded.lost.isEmpty {
            let path = StateWriter.path(dataDir: config.dataDir)
            let aside = loaded.keptAside.map { "kept as \($0)" } ?? "could not be renamed aside"
            logger.error("\(path) is damaged (\(aside)); \(loaded.state == nil ? "nothing" : "the rest") restored")
            for loss in loaded.lost { logger.error("saved state lost: \(loss)") }
        }
        return loaded.state
    }
}
