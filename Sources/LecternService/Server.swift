import Logging
import NIOCore
import NIOPosix

/// The wire protocol's TCP listener (SwiftNIO). Every connection's bytes go to the `Room`,
/// on the room's one event loop.
final class Server: @unchecked Sendable {
    let group: EventLoopGroup
    let room: Room
    let admission: Admission
    private var channel: Channel?

    init(group: EventLoopGroup, room: Room, admission: Admission) {
        self.group = group
        self.room = room
        self.admission = admission
    }

    /// Binds `host:port` (port 0: any free port); returns the port bound.
    func start(host: String, port: Int) throws -> Int {
        let room = self.room, admission = self.admission
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            // tcpOption, not socketOption: at SOL_SOCKET the same number is SO_DEBUG, which
            // only root may set; as the service's own user every connection was closed.
            .childChannelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(ChannelOptions.maxMessagesPerRead, value: 16)
            // Reads grow up to a whole upload chunk (1 MiB): fewer reads for large uploads.
            .childChannelOption(
                ChannelOptions.recvAllocator,
                value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: 1 << 20)
            )
            .childChannelInitializer { channel in
                channel.pipeline.eventLoop.makeCompletedFuture {
                    // Counted with the web remote's connections (`ConnectionGate`).
                    switch admission.arrive(channel) {
                    case .admitted(let id):
                        try channel.pipeline.syncOperations.addHandlers([
                            AdmissionHandler(admission: admission, id: id),
                            PeerHandler(room: room),
                        ])
                    case .refusedAnswering(let id):
                        try channel.pipeline.syncOperations.addHandlers([AdmissionHandler(admission: admission, id: id), RefuseWithError()])
                    case .refused:
                        // The error frame fits any socket buffer: written at once, then closed.
                        try channel.pipeline.syncOperations.addHandler(RefuseWithError())
                    }
                }
            }
        let ch = try bootstrap.bind(host: host, port: port).wait()
        channel = ch
        return ch.localAddress?.port ?? port
    }

    func stop() { try? channel?.close().wait() }
}
