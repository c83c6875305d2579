import LecternProtocol
import NIOCore

/// One peer of the room, whatever carries its frames: the bytes of a TCP connection, or
/// of a browser's WebSocket (a `WebSocketFrameAdaptor` in front of this handler turns
/// binary messages into bytes and bytes into binary messages). Cuts the bytes into
/// protocol frames and hands them, and the connection's life, to the room on its loop;
/// carries out what the room says to this peer. The room's loop is the channels' loop
/// (the service runs one event loop), so the decoder is only ever touched there.
///
/// Sendable unchecked, and why that holds: its closures (`room.loop.execute`,
/// `scheduleTask`) run on the room's loop, which is its channel's loop (one event loop in
/// the service), so its state is only ever touched on that one thread.
final class PeerHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Bytes received and not yet handled past which reading stops (and below which it
    /// starts again): the peer waits, in TCP's flow control, for its turns.
    static let backlogHigh = 4 << 20
    static let backlogLow = 1 << 20

    let room: Room
    private var id: ConnectionID?
    private var channel: Channel?
    private var decoder = FrameDecoder()
    private var failed = false
    /// A turn is scheduled on the loop.
    private var turnPending = false
    /// Why reading is off: the room's choice (`setReading`), or this peer's own backlog.
    private var roomWantsReading = true
    private var backlogFull = false
    /// Frames written and not yet handed to the channel.
    private var outbox: ByteBuffer?
    private var flushPending = false

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
        assert(room.loop.inEventLoop, "the room and its peers share one event loop")
        self.channel = channel
        // The room's output budget for this peer: writability turns off past it.
        let marks = ChannelOptions.Types.WriteBufferWaterMark(low: ProtocolLimits.outputResumeBytes, high: ProtocolLimits.outputBudgetBytes)
        channel.setOption(ChannelOptions.writeBufferWaterMark, value: marks).whenComplete { _ in }
        room.loop.execute { [self] in id = room.accept(self) }
    }

    /// Bytes are kept and cut into frames a turn at a time (`framesPerTurn`), so one peer
    /// sending a flood of small frames can't keep the loop from everyone else.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        decoder.feed(unwrapInboundIn(data).readableBytesView)
        if decoder.bufferedByteCount > Self.backlogHigh && !backlogFull {
            backlogFull = true
            applyReading()
        }
        scheduleTurn()
    }

    private func scheduleTurn(afterIO: Bool = false) {
        guard !turnPending, roomWantsReading else { return }
        turnPending = true
        if afterIO {
            // A moment later: the loop polls its sockets first, so every other peer's bytes
            // are read and get their turn before this peer's next one (a task queued now
            // would run before any I/O).
            room.loop.scheduleTask(in: .microseconds(100)) { [self] in turn() }
        } else {
            room.loop.execute { [self] in turn() }
        }
    }

    private func turn() {
        turnPending = false
        // Not while the room doesn't want this peer's bytes (its output is over budget, or
        // its upload waits for the disk): what is buffered waits too.
        guard let id, !failed, roomWantsReading else { return }
        var frames: [WireFrame] = []
        var failure: (tag: UInt16, error: LecternError)?
        while frames.count < ProtocolLimits.framesPerTurn {
            do {
                guard let frame = try decoder.next() else { break }
                frames.append(frame)
            } catch {
                failed = true
                failure = (decoder.nextHeader?.tag ?? 0, error)   // the bad header's tag, not the read's first
                break
            }
        }
        room.received(id, frames)
        if let failure { room.malformed(id, tag: failure.tag, failure.error) }
        if frames.count == ProtocolLimits.framesPerTurn { scheduleTurn(afterIO: true) }
        if backlogFull && decoder.bufferedByteCount < Self.backlogLow {
            backlogFull = false
            applyReading()
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
    /// Frames written while the room handles one batch of events go out together (one
    /// buffer, one flush), not as a queued write each: what waits for a slow peer costs its
    /// bytes, not an allocation per frame.
    func write(_ bytes: [UInt8]) {
        guard let channel else { return }
        if outbox == nil { outbox = channel.allocator.buffer(capacity: max(bytes.count, 1024)) }
        outbox?.writeBytes(bytes)
        if !flushPending {
            flushPending = true
            room.loop.execute { [self] in flushOutbox() }
        }
    }

    /// Writes one large frame (a piece of the meeting record, read from its file into this
    /// buffer) after the frames already written; succeeds once the connection has taken it.
    func write(frame: ByteBuffer) -> EventLoopFuture<Void> {
        guard let channel else { return room.loop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
        flushOutbox()
        return channel.writeAndFlush(frame)
    }

    private func flushOutbox() {
        flushPending = false
        guard let channel, let buf = outbox else { return }
        outbox = nil
        channel.writeAndFlush(buf, promise: nil)
    }

    /// Stops or starts reading from the peer (back-pressure: an upload being stored, output
    /// over its budget).
    func setReading(_ on: Bool) {
        roomWantsReading = on
        applyReading()
        if on && decoder.bufferedByteCount > 0 { scheduleTurn() }
    }

    private func applyReading() {
        guard let channel else { return }
        let on = roomWantsReading && !backlogFull
        channel.setOption(ChannelOptions.autoRead, value: on).whenComplete { _ in }
        if on { channel.read() }
    }

    /// Tells the connection's admission it is a device's now (`PeerRegistered`).
    func registered() { channel?.triggerUserOutboundEvent(PeerRegistered(), promise: nil) }

    /// Closes the connection after what was written (a WebSocket with its closing handshake).
    func close() {
        flushOutbox()
        channel?.close(promise: nil)
    }
}
