import LecternModel
import Logging
import NIOCore
import Synchronization
import NIOPosix
import NIOSSL

/// The wire protocol's TCP listener (SwiftNIO). Every connection's bytes go to the `Room`,
/// on the room's one event loop.
final class Server: Sendable {
    let group: EventLoopGroup
    let room: Room
    let admission: Admission
    /// TLS or plain, from each connection's first byte (`TransportSniffer`).
    let transport: TransportPolicy
    let tls: TLSServing?
    /// The listening channel, once bound.
    private let channel = Mutex<Channel?>(nil)

    init(group: EventLoopGroup, room: Room, admission: Admission, transport: TransportPolicy = TransportPolicy(tls: false, allowPlain: true), tls: TLSServing? = nil) {
        self.group = group
        self.room = room
        self.admission = admission
        self.transport = transport
        self.tls = tls
    }

    /// Binds `host:port` (port 0: any free port); returns the port bound.
    func start(host: String, port: Int) throws -> Int {
        let room = self.room, admission = self.admission, transport = self.transport, tls = self.tls
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            // tcpOption, not socketOption: at SOL_SOCKET the same number is SO_DEBUG, which
            // only root may set; as the service's own user every connection was closed.
            .childChannelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(ChannelOptions.maxMessagesPerRead, value: UInt(ReadCycle.plainReads))
            // Reads grow up to a whole upload chunk (1 MiB): fewer reads for large uploads.
            .childChannelOption(
                ChannelOptions.recvAllocator,
                value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: ReadCycle.plainReadBytes)
            )
            .childChannelInitializer { channel in
                channel.pipeline.eventLoop.makeCompletedFuture {
                    // Counted with the web remote's connections (`ConnectionGate`).
                    switch admission.arrive(channel) {
                    case .admitted(let id):
                        try channel.pipeline.syncOperations.addHandler(AdmissionHandler(admission: admission, id: id))
                        guard transport.sniffs else {
                            try channel.pipeline.syncOperations.addHandler(PeerHandler(room: room))
                            return
                        }
                        // TLS, plain or refused, from the client's first byte (or its silence).
                        let sniffer = TransportSniffer(policy: transport, tls: tls, serverSpeaksFirst: true, mayHandshake: admission.mayHandshake) { choice, ops, sniffer in
                            switch choice {
                            case .tls, .plain:
                                // Over TLS a turn reads less (`ReadCycle`).
                                if choice == .tls { try ReadCycle.stream(channel, tls: true) }
                                try ops.addHandler(PeerHandler(room: room), position: .after(sniffer))
                            case .refusePlain: try ops.addHandler(RefuseWithError(.tlsRequired), position: .after(sniffer))
                            }
                        }
                        try channel.pipeline.syncOperations.addHandler(sniffer)
                    case .refusedAnswering(let id):
                        try channel.pipeline.syncOperations.addHandler(AdmissionHandler(admission: admission, id: id))
                        guard transport.sniffs else { return try channel.pipeline.syncOperations.addHandler(RefuseWithError()) }
                        // Told in the client's own transport: a TLS client after the handshake
                        // (else it reads a broken TLS record, not tooManyConnections); bounded
                        // by the places kept for refused connections and the 2 s they get.
                        let sniffer = TransportSniffer(policy: transport, tls: tls, serverSpeaksFirst: true, mayHandshake: admission.mayHandshake) { choice, ops, sniffer in
                            try ops.addHandler(RefuseWithError(afterHandshake: choice == .tls), position: .after(sniffer))
                        }
                        try channel.pipeline.syncOperations.addHandler(sniffer)
                    case .refused:
                        // The error frame fits any socket buffer: written at once, then closed.
                        try channel.pipeline.syncOperations.addHandler(RefuseWithError())
                    }
                }
            }
        let ch = try bootstrap.bind(host: host, port: port).wait()
        channel.withLock { $0 = ch }
        return ch.localAddress?.port ?? port
    }

    func stop() { try? channel.withLock { $0 }?.close().wait() }
}
