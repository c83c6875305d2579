import Foundation
import LecternModel
import LecternProtocol
import LecternShare
import Logging

/// Live sharing's part of the service (docs/protocol.md §29): the caps of `[share]`, and each
/// share's decoder in a process of its own when there is a lecternd to run.
extension Service {
    static func configureShares(_ worker: ShareWorker, _ options: Options, logger: Logger) {
        let config = options.config
        let limits = ShareLimits(config.share)
        worker.limits = limits
        guard let executable = options.renderWorker ?? renderWorkerExecutable() else {
            logger.warning("no lecternd to run share decoders: shares are decoded in this process, and a decoder crash would stop the service")
            return
        }
        worker.decoderProcess = (
            executable,
            ShareDecoderProcess.Limits(
                memoryBytes: config.share.decoderMemoryMB << 20, cpuSeconds: Int(config.share.stallSeconds.rounded(.up)) + 2,
                stallSeconds: config.share.stallSeconds, maxSide: limits.maxSide, maxPixels: limits.maxPixels)
        )
    }

    /// The process ids of the shares' decoders now (tests: a crash is a signal to one).
    public var shareDecoderProcessIDs: [Int32] {
        let room = self.room
        return (try? room.loop.submit { room.shareWorker.activeSources.compactMap(\.decoderProcessID) }.wait()) ?? []
    }
}
