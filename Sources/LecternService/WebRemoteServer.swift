import Foundation
import LecternProtocol
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// The HTTP listener of the web remote and its WebSocket upgrade at `/ws`.
final class WebRemoteServer: @unchecked Sendable {
    static let webSocketPath = "/ws"
    /// The largest WebSocket frame accepted from a browser: one whole protocol frame of the
    /// largest size (browsers send a message as one frame; pieces of frames are fine too).
    static let maxWebSocketFrame = Int(ProtocolLimits.maxFrameLength)

    let group: EventLoopGroup
    let room: Room
    let assets: WebAssets
    let logger: Logger
    private let lock = NSLock()
    private var channel: Channel?

    init(group: EventLoopGroup, room: Room, assets: WebAssets, logger: Logger) {
        self.group = group
        self.room = room
        self.assets = assets
        self.logger = logger
    }

    /// Binds `host:port` (port 0: any free port); succeeds with the port bound.
    func bind(host: String, port: Int) -> EventLoopFuture<Int> {
        let room = self.room, assets = self.assets
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(ChannelOptions.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let http = WebHTTPHandler(assets: assets)
                    let upgrader = NIOWebSocketServerUpgrader(
                        maxFrameSize: Self.maxWebSocketFrame,
                        automaticErrorHandling: true,
                        shouldUpgrade: { channel, head in
                            let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
                            return channel.eventLoop.makeSucceededFuture(path == Self.webSocketPath ? HTTPHeaders() : nil)
                        },
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandlers([WebSocketFrameAdaptor(), PeerHandler(room: room)])
                            }
                        })
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withServerUpgrade: (
                            upgraders: [upgrader],
                            completionHandler: { context in
                                // The HTTP handler has nothing more to do on an upgraded connection.
                                context.pipeline.removeHandler(http, promise: nil)
                            }
                        ))
                    try channel.pipeline.syncOperations.addHandler(http)
                }
            }
        return bootstrap.bind(host: host, port: port).map { [self] ch in
            lock.lock(); channel = ch; lock.unlock()
            return ch.localAddress?.port ?? port
        }
    }

    func stop() {
        lock.lock(); let ch = channel; lock.unlock()
        try? ch?.close().wait()
    }
}
