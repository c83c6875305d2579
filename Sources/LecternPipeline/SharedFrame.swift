import Foundation
import Glibc
import LecternModel
import LecternSystem

/// Frame memory two processes share: an anonymous memfd, mapped. The service passes a
/// buffer's descriptor along with each request to the render worker and keeps the
/// mapping as the page's `Frame`: the pixels are drawn once, by the worker, and never
/// copied (a 1080p page is 8 MiB).
///
/// Buffers are made ahead and reused: a small pool holds buffers ready to draw into,
/// topped up in the background after each page (and fed by frames that go: evicted from
/// the page cache, a preview sent), and the worker keeps its mappings of the last few
/// buffers. Allocating 8 MiB of fresh shared pages while the presenter waits cost more
/// than drawing a typical slide (`make bench`: +8–10 ms a page, twice the render); a
/// ready buffer costs nothing. The pool costs up to `poolCapacity` frames of memory
/// (24 MiB at 1080p). Beyond it, a buffer is unmapped and closed when its frame goes, so the memory
/// goes back to the system.
public enum SharedFrame {
    public struct Failed: Error, CustomStringConvertible { public let description: String }

    public struct Buffer {
        public let fd: Int32
        public let memory: UnsafeMutableRawPointer
        public let byteCount: Int
    }

    /// Buffers made ahead for the next pages (`poolSize`), and free buffers kept at most
    /// (`poolCapacity`: one more, so that the buffers of frames that go cycle through the
    /// worker's mappings rather than new ones being made and mapped).
    static let poolSize = 2
    static let poolCapacity = 3
    private static let lock = NSLock()
    nonisolated(unsafe) private static var pool: [Buffer] = []   // read and written under `lock` only

    /// Buffers smaller than this (page previews) are not made ahead.
    static let readyAbove = 1 << 20
    private static let topUpQueue = DispatchQueue(label: "lectern.shared-frames", qos: .utility)
    nonisolated(unsafe) private static var toppingUp = false   // under `lock` only

    /// A buffer of `byteCount` bytes: a ready one from the pool, or a new memfd, mapped.
    /// The pool is then topped up with buffers of this size in the background.
    static func make(byteCount: Int) throws -> Buffer {
        let ready = lock.withLock { () -> Buffer? in
            guard let i = pool.firstIndex(where: { $0.byteCount == byteCount }) else { return nil }
            return pool.remove(at: i)
        }
        if byteCount >= readyAbove { topUp(byteCount) }
        if let ready { return ready }
        return try fresh(byteCount)
    }

    /// Fills the pool with buffers of `byteCount` bytes (those of other sizes go first).
    private static func topUp(_ byteCount: Int) {
        let start = lock.withLock { () -> Bool in
            if toppingUp { return false }
            toppingUp = true
            return true
        }
        guard start else { return }
        topUpQueue.async {
            defer { lock.withLock { toppingUp = false } }
            while true {
                let (needed, stale) = lock.withLock { () -> (Bool, Buffer?) in
                    if let i = pool.firstIndex(where: { $0.byteCount != byteCount }) { return (true, pool.remove(at: i)) }
                    return (pool.count < poolSize, nil)
                }
                if let stale {
                    munmap(stale.memory, stale.byteCount)
                    close(stale.fd)
                }
                guard needed, let b = try? fresh(byteCount) else { return }
                release(b)
            }
        }
    }

    /// A new buffer, never from the pool (a share's pictures, its decoder's input).
    public static func fresh(_ byteCount: Int) throws -> Buffer {
        guard let create = memfdCreate else { throw Failed(description: "memfd_create is not available") }
        let fd = "lectern-frame".withCString { create($0, UInt32(mfdCloexec)) }
        guard fd >= 0 else { throw Failed(description: "memfd_create: \(String(cString: strerror(errno)))") }
        guard ftruncate(fd, off_t(byteCount)) == 0, let memory = map(fd, byteCount) else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw Failed(description: "shared frame of \(byteCount) bytes: \(why)")
        }
        return Buffer(fd: fd, memory: memory, byteCount: byteCount)
    }

    /// Gives a buffer back: to the pool if it has room, else to the system.
    static func release(_ b: Buffer) {
        let kept = lock.withLock { () -> Bool in
            guard pool.count < poolCapacity else { return false }
            pool.append(b)
            return true
        }
        if !kept {
            munmap(b.memory, b.byteCount)
            close(b.fd)
        }
    }

    /// Maps `byteCount` bytes of `fd` shared, read-write; nil on failure (errno says why).
    /// Populated at once (MAP_POPULATE): one pass, not 2048 page faults.
    public static func map(_ fd: Int32, _ byteCount: Int) -> UnsafeMutableRawPointer? {
        let p = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_SHARED | mapPopulate, fd, 0)
        guard let p, p != MAP_FAILED else { return nil }
        return p
    }

    /// The frame over a buffer from `make`; the buffer is released when the frame goes.
    static func frame(_ b: Buffer, width: Int, height: Int) -> Frame {
        let (fd, address, bytes) = (b.fd, UInt(bitPattern: b.memory), b.byteCount)
        return Frame(adopting: b.memory, width: width, height: height, stride: width * 4) {
            release(Buffer(fd: fd, memory: UnsafeMutableRawPointer(bitPattern: address)!, byteCount: bytes))
        }
    }

    /// The worker's side: its mappings of the last `capacity` buffers it drew into, by
    /// the memfd's inode (each request brings a new descriptor for the same buffer).
    public struct Mappings {
        public let capacity: Int
        private var recent: [(inode: UInt64, memory: UnsafeMutableRawPointer, byteCount: Int)] = []
        public init(capacity: Int) { self.capacity = capacity }

        /// The mapping of `fd` (closed here), reusing an earlier one of the same buffer.
        public mutating func map(_ fd: Int32, byteCount: Int) -> UnsafeMutableRawPointer? {
            defer { close(fd) }
            var st = stat()
            guard fstat(fd, &st) == 0, Int(st.st_size) >= byteCount else { return nil }
            let inode = UInt64(st.st_ino)
            if let i = recent.firstIndex(where: { $0.inode == inode && $0.byteCount == byteCount }) {
                let m = recent.remove(at: i)
                recent.append(m)
                return m.memory
            }
            guard let memory = SharedFrame.map(fd, byteCount) else { return nil }
            recent.append((inode, memory, byteCount))
            if recent.count > capacity {
                let old = recent.removeFirst()
                munmap(old.memory, old.byteCount)
            }
            return memory
        }

        /// Lets go of every mapping (memory is short: the frames the service let go
        /// must not be kept alive here).
        mutating func clear() {
            for m in recent { munmap(m.memory, m.byteCount) }
            recent.removeAll()
        }
    }

    private static let mapPopulate: Int32 = 0x8000   // MAP_POPULATE (Linux, every architecture the board uses)

    // glibc has memfd_create since 2.27, but Swift's Glibc module doesn't declare it.
    private static let mfdCloexec = 1   // MFD_CLOEXEC
    private static let memfdCreate = LibcSymbol.lookup("memfd_create", as: (@convention(c) (UnsafePointer<CChar>, UInt32) -> Int32).self)
}

/// One message with at most one descriptor over a SOCK_SEQPACKET socket (SCM_RIGHTS).
public enum SeqPacket {
    /// Sends `bytes` (and `fd` if not -1); false on failure (errno says why). Never raises
    /// SIGPIPE: a dead peer is an error here, not a signal.
    public static func send(_ socket: Int32, _ bytes: [UInt8], fd: Int32 = -1) -> Bool {
        var bytes = bytes
        let space = controlSpace(fd >= 0 ? 1 : 0)
        let control = UnsafeMutableRawPointer.allocate(byteCount: max(space, 1), alignment: 8)
        defer { control.deallocate() }
        control.initializeMemory(as: UInt8.self, repeating: 0, count: max(space, 1))
        return bytes.withUnsafeMutableBytes { buf -> Bool in
            var iov = iovec(iov_base: buf.baseAddress, iov_len: buf.count)
            return withUnsafeMutablePointer(to: &iov) { iovp -> Bool in
                var msg = msghdr()
                msg.msg_iov = iovp
                msg.msg_iovlen = 1
                if fd >= 0 {
                    let h = control.assumingMemoryBound(to: cmsghdr.self)
                    h.pointee.cmsg_len = .init(headerSize + MemoryLayout<Int32>.size)
                    h.pointee.cmsg_level = SOL_SOCKET
                    h.pointee.cmsg_type = Int32(SCM_RIGHTS)
                    (control + headerSize).storeBytes(of: fd, as: Int32.self)
                    msg.msg_control = control
                    msg.msg_controllen = .init(space)
                }
                while true {
                    let n = sendmsg(socket, &msg, Int32(MSG_NOSIGNAL))
                    if n >= 0 { return n == buf.count }
                    if errno != EINTR { return false }
                }
            }
        }
    }

    /// Receives one message of at most `max` bytes and the descriptor that came with it
    /// (-1 if none). nil: the peer is gone (or the socket failed).
    public static func receive(_ socket: Int32, max: Int) -> (bytes: [UInt8], fd: Int32)? {
        var buffer = [UInt8](repeating: 0, count: max)
        let space = controlSpace(1)
        let control = UnsafeMutableRawPointer.allocate(byteCount: space, alignment: 8)
        defer { control.deallocate() }
        control.initializeMemory(as: UInt8.self, repeating: 0, count: space)
        let (n, fd): (Int, Int32) = buffer.withUnsafeMutableBytes { buf in
            var iov = iovec(iov_base: buf.baseAddress, iov_len: buf.count)
            return withUnsafeMutablePointer(to: &iov) { iovp in
                var msg = msghdr()
                msg.msg_iov = iovp
                msg.msg_iovlen = 1
                msg.msg_control = control
                msg.msg_controllen = .init(space)
                var n: Int
                repeat { n = recvmsg(socket, &msg, Int32(MSG_CMSG_CLOEXEC)) } while n < 0 && errno == EINTR
                var fd: Int32 = -1
                if n > 0, Int(msg.msg_controllen) >= headerSize + MemoryLayout<Int32>.size {
                    let h = control.assumingMemoryBound(to: cmsghdr.self)
                    if h.pointee.cmsg_level == SOL_SOCKET, h.pointee.cmsg_type == Int32(SCM_RIGHTS) {
                        fd = (control + headerSize).load(as: Int32.self)
                    }
                }
                return (n, fd)
            }
        }
        guard n > 0 else { return nil }
        return (Array(buffer[0..<n]), fd)
    }

    /// CMSG_ALIGN(sizeof(struct cmsghdr)): where a control message's data starts.
    private static let headerSize = align(MemoryLayout<cmsghdr>.size)
    private static func align(_ n: Int) -> Int {
        let a = MemoryLayout<Int>.size
        return (n + a - 1) & ~(a - 1)
    }
    /// CMSG_SPACE for `count` descriptors.
    private static func controlSpace(_ count: Int) -> Int {
        count == 0 ? 0 : headerSize + align(count * MemoryLayout<Int32>.size)
    }
}
