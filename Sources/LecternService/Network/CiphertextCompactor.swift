import NIOCore

/// Between TLS and the socket: a small write of ciphertext is copied into a buffer of its
/// own size. NIOSSL (2.37, which ignores its `maximumPreservedOutboundBufferCapacity`)
/// hands each flush on as a slice of its one outbound buffer (16 KiB and more) and, while
/// that slice waits for the peer, gives itself a new buffer as large for the next flush.
/// A peer that doesn't read then pinned 16 KiB for every reply of a few hundred bytes, 30
/// times what its output budget counts (readable bytes). Copied, what waits costs what is
/// counted, and NIOSSL's buffer is its own again (reused, not reallocated).
final class CiphertextCompactor: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Copies a buffer whose storage is more than twice its bytes (and more than a page).
    static func compacts(readable: Int, capacity: Int) -> Bool {
        capacity > 4096 && capacity > 2 * readable
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let buf = unwrapOutboundIn(data)
        guard Self.compacts(readable: buf.readableBytes, capacity: buf.storageCapacity) else {
            return context.write(data, promise: promise)
        }
        var copy = context.channel.allocator.buffer(capacity: buf.readableBytes)
        copy.writeImmutableBuffer(buf)
        context.write(wrapOutboundOut(copy), promise: promise)
    }
}
