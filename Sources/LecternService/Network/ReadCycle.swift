import NIOCore
import NIOSSL

/// How much a streaming connection (the protocol port, an upgraded WebSocket) reads in one
/// turn of the event loop. Plain, each read goes on to the peer at once, and the peer stops
/// reading when its backlog is full. Over TLS, NIOSSL gathers a whole turn's plain bytes in
/// one buffer before passing them on (and keeps that buffer's size), so a TLS turn reads
/// less: 1 MiB, not 16, which large uploads don't notice (they are read in more turns).
enum ReadCycle {
    static let plainReads = 16
    static let plainReadBytes = 1 << 20
    static let tlsReads = 4
    static let tlsReadBytes = 256 << 10

    /// The options of a streaming connection, for TLS or plain.
    static func stream(_ channel: Channel, tls: Bool) throws {
        try channel.syncOptions?.setOption(ChannelOptions.maxMessagesPerRead, value: UInt(tls ? tlsReads : plainReads))
        try channel.syncOptions?.setOption(
            ChannelOptions.recvAllocator,
            value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: tls ? tlsReadBytes : plainReadBytes))
    }

    /// Whether the channel speaks TLS (a `TransportSniffer` put NIOSSL in front of it).
    static func isTLS(_ channel: Channel) -> Bool {
        (try? channel.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self)) != nil
    }
}
