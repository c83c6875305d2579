import LecternProtocol
import NIOCore

/// One peer of the room, whatever carries its frames: the bytes of a TCP connection, or
/// of a browser's WebSocket (a `WebSocketFrameAdaptor` in front of this handler turns
/// binary messages into bytes and bytes into binary messages). Cuts the bytes into
/// protocol frames and hands them, and the connection's life, to the room on its loop;
/// carries out what the room says to this peer.
final class PeerHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let room: Room
    private var id: ConnectionID?
    private var channel: Channel?
    private var decoder = FrameDecoder()
    private var failed = false

    init(room: Room) { self.room = room }

    func handlerAdded(context: ChannelHandlerContext) {
        // Behind a WebSocket upgrade the channel is already active.
        if context.channel.isActive { opened(context.channel) }
    }

    func channelActive(context: ChannelHandlerContext) {
        opened(context.channel)
        context.fireChannelActive()
    }

    private func opened(_ channel: Channel) {
        guard self.channel == nil else { return }
        self.channel = channel
        room.loop.execute { [self] in id = room.accept(self) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        let bytes = unwrapInboundIn(data)
        decoder.feed(bytes.readableBytesView)
        var frames: [WireFrame] = []
        var failure: (tag: UInt16, error: LecternError)?
        while true {
            do {
                guard let frame = try decoder.next() else { break }
                frames.append(frame)
            } catch {
                failed = true
                failure = (decoder.nextHeader?.tag ?? 0, error)   // the bad header's tag, not the read's first
                break
            }
        }
        room.loop.execute { [self] in
            guard let id else { return }
            room.received(id, frames)
            if let failure { room.malformed(id, tag: failure.tag, failure.error) }
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        // A closing channel fails its queued writes: that change is not the peer's reading.
        if context.channel.isActive {
            let on = context.channel.isWritable
            room.loop.execute { [self] in if let id { room.writable(id, on) } }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        room.loop.execute { [self] in if let id { room.closed(id) } }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }

    // MARK: what the room does to this peer

    /// The peer's IP address (for the log and the passcode throttle).
    var remoteAddress: String { channel?.remoteAddress?.ipAddress ?? "?" }

    /// Sends whole protocol frames.
    func write(_ bytes: [UInt8]) {
        guard let channel else { return }
        var buf = channel.allocator.buffer(capacity: bytes.count)
        buf.writeBytes(bytes)
        channel.writeAndFlush(buf, promise: nil)
    }

    /// Stops or starts reading from the peer (back-pressure while an upload is stored).
    func setReading(_ on: Bool) { channel?.setOption(ChannelOptions.autoRead, value: on).whenComplete { _ in } }

    /// Closes the connection after what was written (a WebSocket with its closing handshake).
    func close() { channel?.close(promise: nil) }
}
