import NIOCore
import NIOWebSocket

/// Puts a browser's WebSocket in front of a `PeerHandler`: the bytes of binary messages
/// (fragmented or not) go on as plain bytes, and every write of protocol frames goes out
/// as one binary message. Answers pings, the closing handshake, and text (which no client
/// of this binary protocol sends) with a close; closing the channel sends a close (1000)
/// first, after what was written.
final class WebSocketFrameAdaptor: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = WebSocketFrame

    /// Inside a fragmented binary message (continuation frames carry more of it).
    private var inBinaryMessage = false
    private var inTextMessage = false
    private var closing = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .binary:
            inBinaryMessage = !frame.fin
            deliver(frame.unmaskedData, context: context)
        case .continuation:
            if inBinaryMessage {
                deliver(frame.unmaskedData, context: context)
                if frame.fin { inBinaryMessage = false }
            } else if inTextMessage, frame.fin {
                inTextMessage = false
            }
        case .text:
            // The protocol is binary; text is a client that doesn't speak it.
            inTextMessage = !frame.fin
            sendClose(.unacceptableData, context: context, promise: nil)
        case .ping:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            // Answer the closing handshake, then close.
            if closing {
                context.close(promise: nil)
            } else {
                closing = true
                var data = frame.unmaskedData
                let code = data.readSlice(length: 2) ?? context.channel.allocator.buffer(capacity: 0)
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: code))).whenComplete { _ in
                    channel.close(promise: nil)
                }
            }
        default:
            break
        }
    }

    private func deliver(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        guard bytes.readableBytes > 0 else { return }
        context.fireChannelRead(wrapInboundOut(bytes))
    }

    /// The peer handler writes whole protocol frames, several at a time: each goes out as
    /// one binary message (docs/protocol.md §2.1.1).
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var bytes = unwrapOutboundIn(data)
        while bytes.readableBytes > 0 {
            let length = bytes.getInteger(at: bytes.readerIndex + 4, as: UInt32.self).map(Int.init) ?? bytes.readableBytes
            let frame = bytes.readSlice(length: min(max(length, 1), bytes.readableBytes))!
            let last = bytes.readableBytes == 0
            context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .binary, data: frame)), promise: last ? promise : nil)
        }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, !closing else { return context.close(mode: mode, promise: promise) }
        sendClose(.normalClosure, context: context, promise: promise)
    }

    /// A closing handshake with `code`, then the TCP connection closes.
    private func sendClose(_ code: WebSocketErrorCode, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        guard !closing else { promise?.succeed(()); return }
        closing = true
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data))).whenComplete { _ in
            channel.close(mode: .all, promise: promise)   // passes this handler now (closing)
        }
    }
}
