import Foundation
import LecternModel
import LecternDisplay
import LecternProtocol
import NIOCore

extension Service {
    /// When `metrics_address` is set, listens for Prometheus there (the room counts from
    /// its start: `Service.start` gave it its ServiceMetrics). A metrics address that
    /// can't be bound is logged, not fatal: the room works without its metrics.
    func startMetrics(group: EventLoopGroup) {
        let room = self.room
        guard let metrics = room.metrics, let address = config.metricsAddress else { return }
        let host = address.host
        let server = MetricsServer(group: group) { [weak self] loop in
            guard let self else { return loop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
            return room.loop.submit { (room.snapshot(), room.shareWorker.counts) }.hop(to: loop).map { snapshot, shares in
                var r = self.metricsReading(snapshot)
                r.shares = shares
                return metrics.exposition(r)
            }
        }
        do {
            let bound = try server.bind(host: host, port: address.port)
            metricsServer = server
            metricsPort = bound
            logger.info("metrics: http://\(host.contains(":") ? "[\(host)]" : host):\(bound)/metrics")
        } catch {
            logger.error("metrics: can't listen on metrics_address \(address): \(error); the room works without them")
        }
    }

    func metricsReading(_ snapshot: Snapshot) -> ServiceMetrics.Reading {
        let out = output
        return ServiceMetrics.Reading(
            outputConnected: snapshot.output.connected,   // the room's output status (docs/protocol.md §21)
            outputVirtual: out is VirtualDisplay,
            mode: out.mode,
            snapshot: snapshot,
            storageUsedBytes: Int64(clamping: UploadArea.bytes(in: store.directory.path)),
            storageQuotaBytes: config.diskQuotaBytes)
    }
}
