import Foundation
import LecternModel
import LecternSystem
import LecternProtocol
import NIOCore
import Synchronization
import NIOTLS

/// The shell of `ConnectionGate`, shared by both listeners: asks the gate at accept,
/// closes the connections it evicts, and tells it of registrations and closes. Used from
/// the child-channel initializers and handlers (any loop): one lock around the gate.
final class Admission: Sendable {
    private struct State {
        var gate: ConnectionGate
        var channels: [ConnectionGate.ID: Channel] = [:]
        /// TLS handshakes per address (`HandshakeBudget`), asked by the `TransportSniffer`.
        var handshakes: HandshakeBudget
    }
    private let state: Mutex<State>
    private let clock: @Sendable () -> Double

    init(limits: ConnectionGate.Limits, clock: @escaping @Sendable () -> Double = { MonotonicClock.now() }) {
        state = Mutex(
            State(gate: ConnectionGate(limits: limits), handshakes: HandshakeBudget(limits: .forConnections(perAddress: limits.perAddress))))
        self.clock = clock
    }

    /// May this connection's peer start a TLS handshake now (its address's budget)?
    func mayHandshake(_ channel: Channel) -> Bool {
        let address = channel.remoteAddress?.ipAddress ?? "?"
        let now = clock()
        return state.withLock { $0.handshakes.allow(address: address, now: now) }
    }

    /// Open, registered and refused-but-answering connections now (tests, the bench).
    var counts: (open: Int, registered: Int, answering: Int) {
        state.withLock { ($0.gate.open, $0.gate.registered, $0.gate.answering) }
    }

    enum Verdict {
        case admitted(ConnectionGate.ID)
        /// Tell the peer (then close); `closed(id)` when it is gone.
        case refusedAnswering(ConnectionGate.ID)
        /// Close at once.
        case refused
    }

    /// At accept, in the child channel's initializer.
    func arrive(_ channel: Channel) -> Verdict {
        let address = channel.remoteAddress?.ipAddress ?? "?"
        let (decision, victim): (ConnectionGate.Decision, Channel?) = state.withLock { s in
            let d = s.gate.arrive(address: address)
            switch d {
            case .admit(let id, let evicting):
                s.channels[id] = channel
                return (d, evicting.flatMap { s.channels.removeValue(forKey: $0) })
            case .refuse(_, let answer):
                if let answer { s.channels[answer] = channel }
                return (d, nil)
            }
        }
        victim?.close(promise: nil)
        switch decision {
        case .admit(let id, _): return .admitted(id)
        case .refuse(_, let answer?): return .refusedAnswering(answer)
        case .refuse(_, nil): return .refused
        }
    }

    func registered(_ id: ConnectionGate.ID) { state.withLock { $0.gate.registered(id) } }

    func closed(_ id: ConnectionGate.ID) {
        state.withLock {
            $0.gate.closed(id)
            $0.channels[id] = nil
        }
    }
}

/// The room says a peer registered: it may use the places kept for devices. Sent by the
/// `PeerHandler` down its pipeline to the `AdmissionHandler`.
struct PeerRegistered {}

/// First in every accepted connection's pipeline: reports the registration and the close
/// to `Admission`. Made in the child channel's initializer and used on its loop only.
final class AdmissionHandler: ChannelDuplexHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny
    let admission: Admission
    let id: ConnectionGate.ID
    private var reported = false

    init(admission: Admission, id: ConnectionGate.ID) {
        self.admission = admission
        self.id = id
    }

    func channelInactive(context: ChannelHandlerContext) {
        report()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { report() }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is PeerRegistered else { return context.triggerUserOutboundEvent(event, promise: promise) }
        admission.registered(id)
        promise?.succeed(())
    }

    private func report() {
        guard !reported else { return }
        reported = true
        admission.closed(id)
    }
}

/// A refused protocol connection on the TCP port: one error frame `tooManyConnections`,
/// then the connection closes. Used on its channel's loop only.
final class RefuseWithError: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The one frame sent: `tooManyConnections`, or `tlsRequired` for a plain client when
    /// the admin allows only TLS.
    let frame: [UInt8]
    /// Behind TLS: the frame goes once the handshake is done (the client reads it as the
    /// error it is, not as a broken TLS record); the 2 s bound counts from now.
    let afterHandshake: Bool

    init(_ error: LecternError = .tooManyConnections, afterHandshake: Bool = false) {
        frame = Message.error(error).encode(tag: 0, deviceID: ProtocolLimits.unregisteredID)
        self.afterHandshake = afterHandshake
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if afterHandshake {
            let channel = context.channel
            context.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        } else if context.channel.isActive {
            refuse(context)
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        if !afterHandshake { refuse(context) }
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if afterHandshake, case .handshakeCompleted? = event as? TLSUserEvent { refuse(context) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }

    private var done = false
    private func refuse(_ context: ChannelHandlerContext) {
        guard !done else { return }
        done = true
        let channel = context.channel
        var buf = channel.allocator.buffer(capacity: 32)
        buf.writeBytes(frame)
        context.writeAndFlush(wrapOutboundOut(buf)).whenComplete { _ in channel.close(promise: nil) }
        // A peer that never reads can't keep it open.
        context.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
    }
}
