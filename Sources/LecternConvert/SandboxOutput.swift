import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Files a sandbox wrote, taken out of its reach before anything on the host reads them
/// (docs/protocol.md §30.6). What is inside the sandbox is hostile: its output directory
/// may hold a symbolic link to a file of the host (which the host would follow), a hard
/// link, a file it still holds open and goes on writing (the sandbox still runs while its
/// first page is shown), or something endless. So a file is opened without following a
/// link, must be a regular file with one name, and is copied, within a size bound, into
/// a new file the sandbox never had.
enum SandboxOutput {
    enum Refusal: Error, Equatable {
        case missing
        case notARegularFile
        case tooLarge(UInt64)
        case unreadable(String)
    }

    /// Copies `source` (in the sandbox's output directory) to `destination` (a new file,
    /// outside the sandbox). Past `limit` bytes: `.tooLarge`, nothing kept.
    static func take(_ source: String, to destination: String, limit: UInt64) throws(Refusal) {
        let from = open(source, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard from >= 0 else { throw errno == ENOENT ? .missing : errno == ELOOP ? .notARegularFile : .unreadable(String(cString: strerror(errno))) }
        defer { close(from) }
        var st = stat()
        guard fstat(from, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_nlink == 1 else { throw .notARegularFile }
        unlink(destination)
        let to = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard to >= 0 else { throw .unreadable(String(cString: strerror(errno))) }
        var copied: UInt64 = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var failure: Refusal?
        while failure == nil {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(from, $0.baseAddress, $0.count) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                failure = .unreadable(String(cString: strerror(errno)))
                break
            }
            copied += UInt64(n)
            if copied > limit {
                failure = .tooLarge(limit)
                break
            }
            var written = 0
            while written < n {
                let w = buffer.withUnsafeBytes { write(to, $0.baseAddress! + written, n - written) }
                if w < 0 {
                    if errno == EINTR { continue }
                    failure = .unreadable(String(cString: strerror(errno)))
                    break
                }
                written += w
            }
        }
        close(to)
        if let failure {
            unlink(destination)
            throw failure
        }
    }

    /// The contents of a small file the sandbox wrote (its notes), at most `limit` bytes;
    /// nil when it isn't a regular file or is larger.
    static func contents(_ source: String, limit: Int) -> Data? {
        let from = open(source, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard from >= 0 else { return nil }
        defer { close(from) }
        var st = stat()
        guard fstat(from, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_nlink == 1 else { return nil }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(from, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            data.append(contentsOf: buffer[0..<n])
            if data.count > limit { return nil }
        }
        return data
    }
}
