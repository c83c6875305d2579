import Foundation
import Glibc
import LecternModel

/// A file in the service's data directory written so that a power cut leaves the old
/// copy or the new one, never half of either: through an owner-only temp file (0600,
/// whatever the umask), fsync, rename, and an fsync of the directory. The one place the
/// service writes its state, uploads' metadata, the salt and the slow-page list this way.
public enum AtomicFile {
    /// Writes `data` to `path`; throws `ContentError.unreadable` naming what failed.
    public static func write(_ data: Data, to path: String) throws {
        let tmp = path + ".tmp-\(getpid())"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ContentError.unreadable(path: path, reason: "can't write: " + String(cString: strerror(errno))) }
        fchmod(fd, 0o600)   // an old temp file kept its mode through O_TRUNC
        var ok = true
        data.withUnsafeBytes { raw in
            var offset = 0
            while ok, offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { ok = false } else { offset += n }
            }
        }
        let reason = ok ? "" : String(cString: strerror(errno))
        ok = ok && Glibc.fsync(fd) == 0
        close(fd)
        guard ok, rename(tmp, path) == 0 else {
            let why = reason.isEmpty ? String(cString: strerror(errno)) : reason
            unlink(tmp)
            throw ContentError.unreadable(path: path, reason: "can't write: " + why)
        }
        fsync(directory: (path as NSString).deletingLastPathComponent)
    }

    /// Removes the temp files a killed process left in `directory` (`<name>.tmp-<pid>` of
    /// a process other than this one): at the service's start, before anything is written.
    /// Returns the names removed.
    @discardableResult
    public static func removeLeftovers(in directory: String) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        let mine = ".tmp-\(getpid())"
        var removed: [String] = []
        for name in names.sorted() where isLeftover(name) && !name.hasSuffix(mine) {
            if unlink(directory + "/" + name) == 0 { removed.append(name) }
        }
        return removed
    }

    /// `<something>.tmp-<digits>`: how `write` names its temp file.
    static func isLeftover(_ name: String) -> Bool {
        guard let r = name.range(of: ".tmp-", options: .backwards), r.lowerBound != name.startIndex else { return false }
        let pid = name[r.upperBound...]
        return !pid.isEmpty && pid.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// Flushes a file already written (e.g. an upload's bytes before its rename).
    public static func fsync(path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ContentError.unreadable(path: path, reason: "can't open") }
        defer { close(fd) }
        _ = Glibc.fsync(fd)
    }

    /// Makes a rename in `directory` durable.
    public static func fsync(directory: String) {
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 { _ = Glibc.fsync(fd); close(fd) }
    }
}
