import Foundation
import Glibc
import LecternCore

/// Frame memory two processes share: an anonymous memfd, mapped. The service makes one
/// for each page it asks the render worker for, passes its descriptor along with the
/// request, and keeps the mapping as the page's `Frame`: the pixels are drawn once, by
/// the worker, and never copied (a 1080p page is 8 MiB). Unmapped when the frame goes,
/// so the memory goes back to the system at once.
enum SharedFrame {
    struct Failed: Error, CustomStringConvertible { let description: String }

    /// A new memfd of `byteCount` bytes, mapped read-write; the caller closes `fd` once it
    /// was sent (the mapping keeps the memory).
    static func make(byteCount: Int) throws -> (fd: Int32, memory: UnsafeMutableRawPointer) {
        guard let create = memfdCreate else { throw Failed(description: "memfd_create is not available") }
        let fd = "lectern-frame".withCString { create($0, UInt32(mfdCloexec)) }
        guard fd >= 0 else { throw Failed(description: "memfd_create: \(String(cString: strerror(errno)))") }
        guard ftruncate(fd, off_t(byteCount)) == 0, let memory = map(fd, byteCount) else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw Failed(description: "shared frame of \(byteCount) bytes: \(why)")
        }
        return (fd, memory)
    }

    /// Maps `byteCount` bytes of `fd` shared, read-write; nil on failure (errno says why).
    static func map(_ fd: Int32, _ byteCount: Int) -> UnsafeMutableRawPointer? {
        let p = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let p, p != MAP_FAILED else { return nil }
        return p
    }

    /// The frame over a mapping from `make`; unmapped when the frame goes.
    static func frame(_ memory: UnsafeMutableRawPointer, width: Int, height: Int) -> Frame {
        let bytes = width * 4 * height
        let address = UInt(bitPattern: memory)
        return Frame(adopting: memory, width: width, height: height, stride: width * 4) {
            _ = munmap(UnsafeMutableRawPointer(bitPattern: address), bytes)
        }
    }

    // glibc has memfd_create since 2.27, but Swift's Glibc module doesn't declare it.
    private static let mfdCloexec = 1   // MFD_CLOEXEC
    private static let memfdCreate = symbol("memfd_create", as: (@convention(c) (UnsafePointer<CChar>, UInt32) -> Int32).self)

    static func symbol<T>(_ name: String, as type: T.Type) -> T? {
        guard let p = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(p, to: type)
    }
}

/// One message with at most one descriptor over a SOCK_SEQPACKET socket (SCM_RIGHTS).
enum SeqPacket {
    /// Sends `bytes` (and `fd` if not -1); false on failure (errno says why). Never raises
    /// SIGPIPE: a dead peer is an error here, not a signal.
    static func send(_ socket: Int32, _ bytes: [UInt8], fd: Int32 = -1) -> Bool {
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
    static func receive(_ socket: Int32, max: Int) -> (bytes: [UInt8], fd: Int32)? {
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
