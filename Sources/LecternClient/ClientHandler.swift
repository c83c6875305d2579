import Foundation
import LecternModel
import LecternProtocol
import NIOCore

/// Decodes frames, answers pings, and files every message by tag. Made and used on the
/// connection's event loop only (added through `syncOperations`): not Sendable.
final class ClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let inbox: Inbox
    let watch: TLSWatch?
    var decoder = FrameDecoder(maxFrameLength: ProtocolLimits.maxFrameLength)
    init(inbox: Inbox, watch: TLSWatch? = nil) {
        self.inbox = inbox
        self.watch = watch
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buf = unwrapInboundIn(data)
        decoder.feed(buf.readableBytesView)
        while true {
            let frame: WireFrame?
            do { frame = try decoder.next() } catch { context.close(promise: nil); return }
            guard let frame else { return }
            guard let m = try? Message.decode(frame, sentBy: .server) else { continue }
            if case .ping(let n) = m {
                let bytes = Message.pong(nonce: n).encode(tag: frame.header.tag, deviceID: frame.header.deviceID == 0 ? 0xFF : frame.header.deviceID)
                var out = context.channel.allocator.buffer(capacity: bytes.count)
                out.writeBytes(bytes)
                context.writeAndFlush(NIOAny(out), promise: nil)
                continue
            }
            inbox.put(m, tag: frame.header.tag)
        }
    }

    func channelInactive(context: ChannelHandlerContext) { inbox.close() }
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        inbox.setWritable(context.channel.isWritable)
        context.fireChannelWritabilityChanged()
    }
    func errorCaught(context: ChannelHandlerContext, error: Error) {
        watch?.failed(error)
        context.close(promise: nil)
    }
}
