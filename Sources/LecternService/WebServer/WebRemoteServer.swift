import Foundation
import LecternModel
import LecternProtocol
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import Synchronization

/// The HTTP listener of the web remote and its WebSocket upgrade at `/ws`.
final class WebRemoteServer: Sendable {
    static let webSocketPath = "/ws"
    /// The largest WebSocket frame accepted from a browser: one whole protocol frame of the
    /// largest size (browsers send a message as one frame; pieces of frames are fine too).
    static let maxWebSocketFrame = Int(ProtocolLimits.maxFrameLength)

    let group: EventLoopGroup
    let room: Room
    let assets: WebAssets
    let logger: Logger
    let admission: Admission
    let timeouts: WebHTTPHandler.Timeouts
    /// TLS or plain, from each connection's first byte (`TransportSniffer`).
    let transport: TransportPolicy
    let tls: TLSServing?
    /// The deck downloads' pieces in memory, all connections together (`ChunkGate`).
    let chunks = ChunkGate()
    /// The listening channel, once bound.
    private let channel = Mutex<Channel?>(nil)

    init(
        group: EventLoopGroup, room: Room, assets: WebAssets, logger: Logger, admission: Admission, timeouts: WebHTTPHandler.Timeouts,
        transport: TransportPolicy = TransportPolicy(tls: false, allowPlain: true), tls: TLSServing? = nil
    ) {
        self.transport = transport
        self.tls = tls
        self.group = group
        self.room = room
        self.assets = assets
        self.logger = logger
        self.admission = admission
        self.timeouts = timeouts
    }

    /// Binds `host:port` (port 0: any free port); succeeds with the port bound.
    func bind(host: String, port: Int) -> EventLoopFuture<Int> {
        let room = self.room, assets = self.assets, admission = self.admission, timeouts = self.timeouts
        let transport = self.transport, tls = self.tls, chunks = self.chunks
        // Where a plain request may be redirected (besides the address it arrived on).
        let names = transport.sniffs ? PlainWebGate.currentNames() : []
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
            // Plain HTTP reads little at a time: pipelined requests wait in the socket
            // (not in memory) until the one before is answered. An upgrade reads more.
            .childChannelOption(ChannelOptions.maxMessagesPerRead, value: 1)
            .childChannelOption(ChannelOptions.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 4096))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // Counted with the protocol port's connections (`ConnectionGate`).
                    let gateID: ConnectionGate.ID, refusing: Bool
                    switch admission.arrive(channel) {
                    case .admitted(let id): (gateID, refusing) = (id, false)
                    case .refusedAnswering(let id): (gateID, refusing) = (id, true)
                    case .refused: throw ChannelError.inputClosed
                    }
                    try channel.pipeline.syncOperations.addHandler(AdmissionHandler(admission: admission, id: gateID))
                    if transport.sniffs {
                        // In front of HTTP: TLS from a ClientHello; plain requests meet the gate
                        // (browsers sent to https://, plain WebSockets only with allow_plain).
                        try channel.pipeline.syncOperations.addHandler(
                            TransportSniffer(policy: transport, tls: tls, serverSpeaksFirst: false, mayHandshake: admission.mayHandshake) { choice, ops, sniffer in
                                switch choice {
                                case .tls: break
                                case .plain: try ops.addHandler(PlainWebGate(allowPlain: true, names: names, tls: tls), position: .after(sniffer))
                                case .refusePlain: try ops.addHandler(PlainWebGate(allowPlain: false, names: names, tls: tls), position: .after(sniffer))
                                }
                            })
                    }
                    let http = WebHTTPHandler(assets: assets, refusing: refusing, timeouts: timeouts, download: room.download, pageImages: room.pageImages, chunks: chunks)
                    let upgrader = NIOWebSocketServerUpgrader(
                        maxFrameSize: Self.maxWebSocketFrame,
                        automaticErrorHandling: true,
                        shouldUpgrade: { channel, head in
                            let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
                            // Another site's page gets no upgrade: WebHTTPHandler answers 403.
                            let ok = path == Self.webSocketPath && WebOrigin.allows(head.headers)
                            return channel.eventLoop.makeSucceededFuture(ok ? HTTPHeaders() : nil)
                        },
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                try ReadCycle.stream(channel, tls: ReadCycle.isTLS(channel))
                                if refusing {
                                    // One error frame (tooManyConnections), then the close.
                                    try channel.pipeline.syncOperations.addHandlers([WebSocketFrameAdaptor(), RefuseWithError()])
                                } else {
                                    try channel.pipeline.syncOperations.addHandlers([
                                        WebSocketFrameAdaptor(), PeerHandler(room: room),
                                    ])
                                }
                            }
                        })
                    let boundHTTP = NIOLoopBound(http, eventLoop: channel.eventLoop)
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withServerUpgrade: (
                            upgraders: [upgrader],
                            completionHandler: { context in
                                // The HTTP handler has nothing more to do on an upgraded connection.
                                context.pipeline.syncOperations.removeHandler(boundHTTP.value, promise: nil)
                            }
                        ))
                    try channel.pipeline.syncOperations.addHandler(http)
                }
            }
        return bootstrap.bind(host: host, port: port).map { [self] ch in
            channel.withLock { $0 = ch }
            return ch.localAddress?.port ?? port
        }
    }

    func stop() {
        let ch = channel.withLock { $0 }
        try? ch?.close().wait()
    }
}
