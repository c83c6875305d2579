import Foundation

extension Fixtures {
    /// This process's threads as the kernel sees them (/proc/self/task): each one's name
    /// (`comm`, 15 bytes at most; a thread starts with its creator's) and nice value.
    public static func threads() -> [(name: String, nice: Int)] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { t in
            guard let name = try? String(contentsOfFile: "/proc/self/task/\(t)/comm", encoding: .utf8),
                let stat = try? String(contentsOfFile: "/proc/self/task/\(t)/stat", encoding: .utf8),
                // The fields after the name (which may hold spaces) start at ") ": nice is field 19.
                let close = stat.range(of: ") ", options: .backwards)
            else { return nil }
            let fields = stat[close.upperBound...].split(separator: " ")
            guard fields.count > 16, let nice = Int(fields[16]) else { return nil }
            return (name.trimmingCharacters(in: .whitespacesAndNewlines), nice)
        }
    }
}
