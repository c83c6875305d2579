import Logging
import NIOCore
import NIOPosix

/// The wire protocol's TCP listener (SwiftNIO). Every connection's bytes go to the `Room`,
/// on the room's one event loop.
final class Server: @unchecked Sendable {
    let group: EventLoopGroup
    let room: Room
    private var channel: Channel?

    init(group: EventLoopGroup, room: Room) {
        self.group = group
        self.room = room
    }

    /// Binds `host:port` (port 0: any free port); returns the port bound.
    func start(host: String, port: Int) throws -> Int {
        let room = self.room
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(ChannelOptions.maxMessagesPerRead, value: 16)
            // Reads grow up to a whole upload chunk (1 MiB): fewer reads for large uploads.
            .childChannelOption(
                ChannelOptions.recvAllocator,
                value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: 1 << 20)
            )
            .childChannelInitializer { channel in
                channel.pipeline.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(PeerHandler(room: room))
                }
            }
        let ch = try bootstrap.bind(host: host, port: port).wait()
        channel = ch
        return ch.localAddress?.port ?? port
    }

    func stop() { try? channel?.close().wait() }
}
