import Foundation
import NIOCore
import NIOPosix

/// An open file sent a piece at a time (the deck's download, the meeting record): each
/// piece is read on the thread pool straight into the buffer that is written (after
/// whatever head the caller put there), never the whole file, never a copy. The file is
/// closed when the last reference goes (a read in progress holds one).
final class FileChunks: Sendable {
    let fd: Int32
    let size: Int

    /// Opens `path` read-only; `unlinking`: removes its name at once (the open file stays
    /// readable and its space is freed when it closes, even after a crash).
    init(path: String, unlinking: Bool = false) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(description: "\(path): \(String(cString: strerror(errno)))") }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw Failure(description: "\(path): not a regular file")
        }
        if unlinking { unlink(path) }
        self.fd = fd
        size = Int(st.st_size)
    }

    deinit { close(fd) }

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// The pool the pieces are read on (the process's shared one).
    static let pool = NIOThreadPool.singleton

    /// Appends `count` bytes from `offset` to `buffer` on the pool; succeeds on `loop` with
    /// the buffer (fails if the file is shorter now).
    func read(offset: Int, count: Int, appendingTo buffer: ByteBuffer, on loop: EventLoop) -> EventLoopFuture<ByteBuffer> {
        Self.pool.runIfActive(eventLoop: loop) { [self] in
            var buf = buffer
            var done = 0
            while done < count {
                let n = try buf.writeWithUnsafeMutableBytes(minimumWritableBytes: count - done) { p in
                    let r = pread(fd, p.baseAddress, count - done, off_t(offset + done))
                    if r < 0 && errno == EINTR { return 0 }
                    guard r > 0 else { throw Failure(description: r == 0 ? "the file got shorter" : String(cString: strerror(errno))) }
                    return r
                }
                done += n
            }
            return buf
        }
    }
}
