import LecternProtocol
import NIOCore

/// Sends the meeting record's PDF to whoever asked (docs/protocol.md §26.2) as record-data
/// frames read from its open file: each piece (`pieceSize`) is read into the frame's own
/// buffer, after its head, and the next is read only once the connection has taken this
/// one. One piece in memory whatever the PDF's size and however slowly the peer reads; a
/// peer that takes no piece for `stallSeconds` is closed (the room may make the next
/// record then). Confined to the room's loop.
final class RecordSender {
    static let pieceSize = 256 << 10
    static let stallSeconds: Int64 = 10

    private let link: PeerLink
    private let file: FileChunks
    private let tag: UInt16
    private let device: UInt8
    private let pages: UInt16
    private let loop: EventLoop
    private let done: () -> Void

    init(link: PeerLink, file: FileChunks, tag: UInt16, device: UInt8, pages: Int, loop: EventLoop, done: @escaping () -> Void) {
        self.link = link
        self.file = file
        self.tag = tag
        self.device = device
        self.pages = UInt16(clamping: pages)
        self.loop = loop
        self.done = done
    }

    func start() { send(from: 0) }

    /// Reads and writes the piece at `offset` (an empty PDF: one piece with no data).
    private func send(from offset: Int) {
        let n = min(Self.pieceSize, file.size - offset)
        let head = RecordChunk.frameHead(
            pages: pages, totalSize: UInt32(clamping: file.size), offset: UInt32(clamping: offset), dataCount: n, tag: tag, deviceID: device)
        var buffer = ByteBufferAllocator().buffer(capacity: head.count + n)
        buffer.writeBytes(head)
        let me = NIOLoopBound(self, eventLoop: loop)
        file.read(offset: offset, count: n, appendingTo: buffer, on: loop).whenComplete { read in
            let sender = me.value
            guard case .success(let frame) = read else {
                // The file can't be read: the peer would wait for pieces that never come.
                sender.link.close()
                return sender.done()
            }
            // A peer that takes nothing more is closed (its write then fails: done).
            let stall = sender.loop.scheduleTask(in: .seconds(Self.stallSeconds)) { me.value.link.close() }
            sender.link.write(frame: frame).whenComplete { written in
                stall.cancel()
                let sender = me.value
                guard case .success = written, offset + n < sender.file.size else { return sender.done() }
                sender.send(from: offset + n)
            }
        }
    }
}
