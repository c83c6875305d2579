import Foundation
import LecternModel
import LecternProtocol
import NIOCore

extension LecternConnection {
    /// Uploads a file: hashes it, offers a possession proof (so a file the appliance has is
    /// not sent again), streams the missing chunks, verifies. `progress(sent, total)` is
    /// called as the server confirms bytes; `converting` as the server converts a file that
    /// is neither a PDF nor a clip (docs/protocol.md §30.3), until upload-stored.
    /// `firstPage`: return as soon as a converted deck's first page may be presented
    /// (conversion-progress stage 3, §30.8), with the pages ready as its page count; the
    /// rest converts on the appliance (the upload-finish's answer is then not waited for).
    public func upload(
        path: String, name: String? = nil, kind: ContentKind? = nil,
        progress: ((UInt64, UInt64) -> Void)? = nil,
        converting: ((ConversionProgress) -> Void)? = nil,
        firstPage: Bool = false
    ) throws -> UploadStored {
        let url = URL(fileURLWithPath: path)
        guard let handle = try? FileHandle(forReadingFrom: url) else { throw ClientError.unexpected("can't read \(path)") }
        defer { try? handle.close() }
        var hasher = ContentHasher()
        var possession = PossessionProof(challenge: hello.challenge)
        var size: UInt64 = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(chunk); possession.update(chunk); size += UInt64(chunk.count)
        }
        let id = hasher.finalize()
        let begin = UploadBegin(
            content: id, size: size, kind: kind, proof: possession.finalize(),
            name: name ?? url.lastPathComponent)
        let beginTag = send(.uploadBegin(begin))
        guard case .uploadReady(let ready) = try reply(tag: beginTag, what: "upload-ready") else {
            throw ClientError.unexpected("upload-ready")
        }
        if ready.status == .stored {
            progress?(size, size)
            return UploadStored(content: id, kind: ready.kind ?? .pdf, size: size, pageCount: ready.pageCount, durationMs: ready.durationMs)
        }
        progress?(ready.offset, size)
        try handle.seek(toOffset: ready.offset)
        var chunkTags: [UInt16] = []
        for range in UploadPlan.chunks(size: size, from: ready.offset) {
            guard inbox.waitUntilWritable(timeout: timeout) else {
                throw channel.isActive ? ClientError.timedOut("upload") : ClientError.closed
            }
            chunkTags.append(try sendChunk(id, range, from: handle.fileDescriptor, path: path))
            // A failed chunk is answered with its tag: stop at the first one.
            if let failure = inbox.firstFailure(tags: chunkTags) { throw ClientError.server(failure) }
            while let m = inbox.next(tag: beginTag, command: Command.uploadProgress.rawValue, timeout: 0) {
                if case .uploadProgress(_, let stored) = m { progress?(stored, size) }
            }
        }
        let finishTag = send(.uploadFinish(content: id))
        while true {
            if let failure = inbox.firstFailure(tags: chunkTags) { throw ClientError.server(failure) }
            if let m = inbox.next(tag: beginTag, command: Command.uploadProgress.rawValue, timeout: 0) {
                if case .uploadProgress(_, let stored) = m { progress?(stored, size) }
                continue
            }
            if let m = inbox.next(tag: beginTag, command: Command.conversionProgress.rawValue, timeout: 0) {
                if case .conversionProgress(let p) = m {
                    converting?(p)
                    if firstPage, p.stage == .firstPage {
                        progress?(size, size)
                        return UploadStored(content: id, kind: .pdf, size: size, pageCount: max(1, p.done), durationMs: 0)
                    }
                }
                continue
            }
            if let m = inbox.next(tag: finishTag, command: nil, timeout: 0.05) {
                if let e = m.error { throw ClientError.server(e) }
                guard case .uploadStored(let stored) = m else { throw ClientError.unexpected("\(m.command)") }
                progress?(size, size)
                return stored
            }
            if !channel.isActive { throw ClientError.closed }
        }
    }

    /// Sends one upload-chunk whose data is read from `fd` straight into the frame's buffer.
    private func sendChunk(_ id: ContentID, _ range: Range<UInt64>, from fd: Int32, path: String) throws -> UInt16 {
        let tag = newTag()
        let count = Int(range.count)
        var prefix = ByteWriter(capacity: FrameHeader.size + 40)
        FrameHeader(
            command: Command.uploadChunk.rawValue, deviceID: deviceID, tag: tag,
            length: UInt32(FrameHeader.size + 40 + count)
        ).encode(into: &prefix)
        prefix.bytes(id.bytes)
        prefix.u64(range.lowerBound)
        var buf = channel.allocator.buffer(capacity: prefix.bytes.count + count)
        buf.writeBytes(prefix.bytes)
        var read = 0
        while read < count {
            let n = buf.writeWithUnsafeMutableBytes(minimumWritableBytes: count - read) { out in
                max(0, pread(fd, out.baseAddress, count - read, off_t(range.lowerBound) + off_t(read)))
            }
            if n == 0 { throw ClientError.unexpected("\(path) changed while uploading") }
            read += n
        }
        channel.writeAndFlush(buf, promise: nil)
        return tag
    }
}
