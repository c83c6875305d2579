import Foundation

/// Config drop-ins: `lectern.d/*.toml` beside the main file (`/etc/lectern/lectern.d/` for
/// `/etc/lectern/lectern.toml`), so Ansible, Salt or a package can drop a room's file
/// without editing the main one. Applied in byte order of their names (`10-site.toml`
/// before `20-room.toml`), each over the ones before; names starting with "." and names
/// not ending in ".toml" are left out (editor backups, `.dpkg-dist`, …). A missing
/// directory means no drop-ins.
public enum ConfigDropIns {
    /// At most this many drop-ins are read; more is a problem, not a silent cut.
    public static let maxFiles = 64
    /// A drop-in larger than this is a problem (the main file's own limit is the admin's).
    public static let maxFileBytes: Int64 = 1 << 20

    public struct Unusable: Error {
        public let path: String
        public let message: String
    }

    /// The directory of drop-ins for the main file at `path`.
    public static func directory(besideMain path: String) -> String {
        (URL(fileURLWithPath: path).deletingLastPathComponent().path as NSString).appendingPathComponent("lectern.d")
    }

    /// The drop-ins to apply over `path`, in order.
    public static func files(besideMain path: String) throws -> [String] {
        let dir = directory(besideMain: path)
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir) else { return [] }
        guard isDir.boolValue else { throw Unusable(path: dir, message: "is not a directory (drop-ins go in a directory lectern.d beside the main file)") }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
            throw Unusable(path: dir, message: "can't be read (permissions? it should be owned by root, group lectern, mode 750)")
        }
        let chosen = names.filter { isDropInName($0) }.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        guard chosen.count <= maxFiles else {
            throw Unusable(path: dir, message: "holds \(chosen.count) .toml files, more than \(maxFiles): merge some")
        }
        return chosen.map { (dir as NSString).appendingPathComponent($0) }
    }

    static func isDropInName(_ name: String) -> Bool {
        !name.hasPrefix(".") && name.hasSuffix(".toml") && name.count > ".toml".count
    }
}
