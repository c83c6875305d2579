import Foundation

/// A render worker's address space as its memory limit (RLIMIT_AS) counts it, without the
/// frames the service shares with it (`SharedFrame`'s memfds: they come and go with the
/// output's size, not with the worker's growth). Read from /proc/<pid>/maps between pages.
public enum WorkerFootprint {
    /// The bytes of `pid`'s mappings, memfd frames left out (nil: not readable).
    public static func bytes(pid: pid_t) -> Int? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/maps"), !data.isEmpty else { return nil }
        return bytes(maps: String(decoding: data, as: UTF8.self))
    }

    /// The same of a maps file's text (pure: tested on its own).
    public static func bytes(maps: String) -> Int {
        var total = 0
        for line in maps.split(separator: "\n") {
            if line.contains("/memfd:lectern-frame") { continue }
            guard let range = line.split(separator: " ", maxSplits: 1).first else { continue }
            let ends = range.split(separator: "-")
            guard ends.count == 2, let lo = Int(ends[0], radix: 16), let hi = Int(ends[1], radix: 16), hi > lo else { continue }
            total += hi - lo
        }
        return total
    }
}
