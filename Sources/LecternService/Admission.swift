import Foundation
import LecternCore
import LecternProtocol
import NIOCore

/// The shell of `ConnectionGate`, shared by both listeners: asks the gate at accept,
/// closes the connections it evicts, and tells it of registrations and closes. Used from
/// the child-channel initializers and handlers (any loop): one lock around the gate.
final class Admission: @unchecked Sendable {
    private let lock = NSLock()
    private var gate: ConnectionGate
    private var channels: [ConnectionGate.ID: Channel] = [:]

    init(limits: ConnectionGate.Limits) { gate = ConnectionGate(limits: limits) }

    /// Open, registered and refused-but-answering connections now (tests, the bench).
    var counts: (open: Int, registered: Int, answering: Int) {
        lock.withLock { (gate.open, gate.registered, gate.answering) }
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
        let (decision, victim): (ConnectionGate.Decision, Channel?) = lock.withLock {
            let d = gate.arrive(address: address)
            switch d {
            case .admit(let id, let evicting):
                channels[id] = channel
                return (d, evicting.flatMap { channels.removeValue(forKey: $0) })
            case .refuse(_, let answer):
                if let answer { channels[answer] = channel }
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

    func registered(_ id: ConnectionGate.ID) { lock.withLock { gate.registered(id) } }

    func closed(_ id: ConnectionGate.ID) {
        lock.withLock {
            gate.closed(id)
            channels[id] = nil
        }
    }
}

/// First in every accepted connection's pipeline: reports the close to `Admission`.
final class AdmissionHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = NIOAny
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

    private func report() {
        guard !reported else { return }
        reported = true
        admission.closed(id)
    }
}

/// Between a peer's transport and its `PeerHandler`: watches the protocol frames the room
/// writes and tells `Admission` when the peer has registered (a register-ok went out), so
/// the connection may use the places kept for devices. Each write of the room is one or
/// more whole frames.
final class RegistrationWatch: ChannelOutboundHandler, @unchecked Sendable {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let admission: Admission
    let id: ConnectionGate.ID
    private var seen = false

    init(admission: Admission, id: ConnectionGate.ID) {
        self.admission = admission
        self.id = id
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if !seen {
            // A write holds one or more whole frames (the peer handler sends a batch at once).
            let buf = unwrapOutboundIn(data)
            var at = buf.readerIndex
            while at + FrameHeader.size <= buf.writerIndex,
                let command = buf.getInteger(at: at, as: UInt8.self),
                let length = buf.getInteger(at: at + 4, as: UInt32.self), length >= FrameHeader.size
            {
                if command == Command.registerOK.rawValue {
                    seen = true
                    admission.registered(id)
                    break
                }
                at += Int(length)
            }
        }
        context.write(data, promise: promise)
    }
}

/// A refused protocol connection on the TCP port: one error frame `tooManyConnections`,
/// then the connection closes.
final class RefuseWithError: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static var frame: [UInt8] { Message.error(.tooManyConnections).encode(tag: 0, deviceID: ProtocolLimits.unregisteredID) }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { refuse(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        refuse(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }

    private var done = false
    private func refuse(_ context: ChannelHandlerContext) {
        guard !done else { return }
        done = true
        let channel = context.channel
        var buf = channel.allocator.buffer(capacity: 32)
        buf.writeBytes(Self.frame)
        context.writeAndFlush(wrapOutboundOut(buf)).whenComplete { _ in channel.close(promise: nil) }
        // A peer that never reads can't keep it open.
        context.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
    }
}
