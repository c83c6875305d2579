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
            .childChannelOption(ChannelOptions.recvAllocator,
                                value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: 1 << 20))
            .childChannelInitializer { channel in
                channel.pipeline.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ConnectionHandler(room: room))
                }
            }
        let ch = try bootstrap.bind(host: host, port: port).wait()
        channel = ch
        return ch.localAddress?.port ?? port
    }

    func stop() { try? channel?.close().wait() }
}

/// How the room talks back to one peer, whatever carries the frames (TCP bytes, or
/// WebSocket binary messages from the web remote).
protocol PeerTransport: AnyObject {
    /// The peer's IP address (for the log and the passcode throttle).
    var remoteAddress: String { get }
    /// False while written data is still queued (the keep-alive then waits).
    var isWritable: Bool { get }
    /// Sends whole protocol frames.
    func write(_ bytes: [UInt8])
    /// Stops or starts reading from the peer (back-pressure while an upload is stored).
    func setReading(_ on: Bool)
    func close()
}

/// A TCP connection as a peer transport.
final class TCPTransport: PeerTransport {
    let channel: Channel
    init(_ channel: Channel) { self.channel = channel }
    var remoteAddress: String { channel.remoteAddress?.ipAddress ?? "?" }
    var isWritable: Bool { channel.isWritable }
    func write(_ bytes: [UInt8]) {
        var buf = channel.allocator.buffer(capacity: bytes.count)
        buf.writeBytes(bytes)
        channel.writeAndFlush(buf, promise: nil)
    }
    func setReading(_ on: Bool) { channel.setOption(ChannelOptions.autoRead, value: on).whenComplete { _ in } }
    func close() { channel.close(promise: nil) }
}

/// Hands one connection's events to the room, hopping onto the room's loop.
final class ConnectionHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    let room: Room
    var id: UInt64?

    init(room: Room) { self.room = room }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        room.loop.execute { [self] in id = room.accept(TCPTransport(channel)) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        room.loop.execute { [self] in if let id { room.received(id, bytes) } }
    }

    func channelInactive(context: ChannelHandlerContext) {
        room.loop.execute { [self] in if let id { room.closed(id) } }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
