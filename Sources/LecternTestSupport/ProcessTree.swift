import Foundation

/// Processes found through `/proc`: those whose command line names a path (a test's own
/// sandboxes, under its own directory) and everything descended from them. For tests and
/// the bench, which only ever touch processes of the service they started.
public enum ProcessTree {
    /// Processes whose command line contains `path`.
    public static func pids(naming path: String) -> [Int32] {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { Int32($0) } ?? []
        return all.filter { String(decoding: FileManager.default.contents(atPath: "/proc/\($0)/cmdline") ?? Data(), as: UTF8.self).contains(path) }
    }

    /// `roots` and every process descended from them.
    public static func tree(of roots: [Int32]) -> [Int32] {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { Int32($0) } ?? []
        var parent: [Int32: Int32] = [:]
        for p in all {
            guard let stat = try? String(contentsOfFile: "/proc/\(p)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let pp = Int32(fields[1]) { parent[p] = pp }
        }
        var inTree = Set(roots)
        var grew = true
        while grew {
            grew = false
            for (p, pp) in parent where !inTree.contains(p) && inTree.contains(pp) {
                inTree.insert(p)
                grew = true
            }
        }
        return Array(inTree)
    }

    /// Sends `signal` to every process of the tree rooted at the processes naming `path`
    /// (SIGSTOP holds a converter where it is, SIGCONT lets it go on); returns them.
    @discardableResult
    public static func signal(_ signal: Int32, naming path: String) -> [Int32] {
        let pids = tree(of: pids(naming: path))
        for p in pids { kill(p, signal) }
        return pids
    }
}
