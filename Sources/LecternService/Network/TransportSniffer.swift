import LecternModel
import NIOCore
import NIOSSL

/// The first handler of every connection on both ports when TLS is on: looks at the
/// client's first byte (a TLS ClientHello starts 0x16) and puts TLS in front of the
/// connection, or carries on in plain, or refuses plain (`TransportPolicy`). On the
/// protocol port, where the server speaks first, a client that says nothing for
/// `TransportPolicy.plainHelloDelay` is a plain one waiting for hello.
///
/// Used on its channel's loop only (its timer reaches it through `NIOLoopBound`).
final class TransportSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    let policy: TransportPolicy
    /// The certificate in force when the ClientHello arrives (a reload swaps it).
    let tls: TLSServing?
    /// The protocol port: plain clients wait for hello, so silence means plain.
    let serverSpeaksFirst: Bool
    /// Asked before a handshake: may this peer's address make one now (`HandshakeBudget`)?
    let mayHandshake: (Channel) -> Bool
    /// Adds, after this handler (and after TLS when chosen), what the connection becomes.
    let build: (TransportPolicy.Choice, ChannelPipeline.SynchronousOperations, TransportSniffer) throws -> Void
    private var timer: Scheduled<Void>?
    private var decided = false

    init(
        policy: TransportPolicy, tls: TLSServing?, serverSpeaksFirst: Bool, mayHandshake: @escaping (Channel) -> Bool = { _ in true },
        build: @escaping (TransportPolicy.Choice, ChannelPipeline.SynchronousOperations, TransportSniffer) throws -> Void
    ) {
        self.policy = policy
        self.tls = tls
        self.serverSpeaksFirst = serverSpeaksFirst
        self.mayHandshake = mayHandshake
        self.build = build
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    private func arm(_ context: ChannelHandlerContext) {
        guard serverSpeaksFirst, timer == nil, !decided else { return }
        let delay = TimeAmount.milliseconds(Int64(TransportPolicy.plainHelloDelay * 1000))
        let loopBound = NIOLoopBound((sniffer: self, context: context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: delay) {
            loopBound.value.sniffer.decide(loopBound.value.context, first: nil, data: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !decided else { return context.fireChannelRead(data) }
        let buf = unwrapInboundIn(data)
        guard let first = buf.readableBytesView.first else { return }
        decide(context, first: first, data: data)
    }

    private func decide(_ context: ChannelHandlerContext, first: UInt8?, data: NIOAny?) {
        guard !decided else { return }
        decided = true
        timer?.cancel()
        let choice = policy.choose(firstByte: first)
        if choice == .tls, !mayHandshake(context.channel) {
            // Over its address's handshake budget: closed before any TLS work.
            context.close(promise: nil)
            return
        }
        do {
            let ops = context.pipeline.syncOperations
            try build(choice, ops, self)
            if choice == .tls, let tls {
                try ops.addHandler(NIOSSLServerHandler(context: tls.current.context), position: .after(self))
                // Before TLS on the way out: what waits for the peer costs its bytes.
                try ops.addHandler(CiphertextCompactor(), position: .after(self))
            }
        } catch {
            context.close(promise: nil)
            return
        }
        if let data { context.fireChannelRead(data) }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        context.fireChannelInactive()
    }
}
