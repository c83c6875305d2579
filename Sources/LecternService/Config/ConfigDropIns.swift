import Foundation

/// Config drop-ins: `lectern.d/*.toml` beside the main file (`/etc/lectern/lectern.d/` for
/// `/etc/lectern/lectern.toml`), so Ansible, Salt or a package can drop a room's file
/// without editing the main one. Applied in byte order of their names (`10-site.toml`
/// before `20-room.toml`), each over the ones before; names starting with "." and names
/// not ending in ".toml" are left out (editor backups, `.dpkg-dist`, …). A missing
/// directory means no drop-ins. A drop-in can change the passcodes, so the directory and
/// each file must be safe from other users: owned by root or by the main file's owner,
/// writable by no one else (no group or world write), not a symlink, and each file a
/// regular file; anything else is a problem naming the file (docs/config.md).
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

    /// What `lstat` says of a drop-in or its directory: all `refusal` looks at.
    public struct Facts: Equatable, Sendable {
        public enum Kind: Equatable, Sendable { case regular, directory, symlink, other }
        public var kind: Kind
        public var owner: uid_t
        public var mode: mode_t
        public init(kind: Kind, owner: uid_t, mode: mode_t) {
            self.kind = kind
            self.owner = owner
            self.mode = mode
        }

        /// The facts of `path` itself (a symlink is not followed); nil if it isn't there.
        public static func of(_ path: String) -> Facts? {
            var st = stat()
            guard lstat(path, &st) == 0 else { return nil }
            let kind: Kind
            switch st.st_mode & S_IFMT {
            case S_IFREG: kind = .regular
            case S_IFDIR: kind = .directory
            case S_IFLNK: kind = .symlink
            default: kind = .other
            }
            return Facts(kind: kind, owner: st.st_uid, mode: st.st_mode & 0o7777)
        }
    }

    /// Why a drop-in (`directory`: its directory) must not be used, or nil: it must be what
    /// it says (a regular file, a directory), not a symlink, owned by root or `mainOwner`
    /// (the main file's owner), and writable by its owner alone. Pure.
    public static func refusal(_ f: Facts, directory: Bool, mainOwner: uid_t) -> String? {
        let owners = mainOwner == 0 ? "root" : "root or the main file's owner (uid \(mainOwner))"
        switch f.kind {
        case .symlink: return "is a symbolic link: drop-ins are read only from real \(directory ? "directories" : "files") (copy the file in)"
        case .regular where directory, .directory where !directory, .other:
            return directory ? "is not a directory (drop-ins go in a directory lectern.d beside the main file)" : "is not a regular file"
        default: break
        }
        if f.owner != 0 && f.owner != mainOwner {
            return "is owned by uid \(f.owner), not \(owners): whoever owns it can change the passcodes: chown root it"
        }
        if f.mode & 0o022 != 0 {
            let who = f.mode & 0o002 != 0 ? "every user" : "its group"
            return "is writable by \(who): anyone who can write it can change the passcodes: chmod \(directory ? "750" : "640") it (owner root, group lectern)"
        }
        return nil
    }

    /// Why the drop-in `file` must not be used (nil: it may), from its own facts.
    public static func refusal(of file: String, directory: Bool = false, mainOwner: uid_t) -> String? {
        guard let f = Facts.of(file) else { return nil }   // gone: reading it says so
        return refusal(f, directory: directory, mainOwner: mainOwner)
    }

    /// The owner of the main file (root when it can't be told).
    public static func owner(of path: String) -> uid_t {
        var st = stat()
        return stat(path, &st) == 0 ? st.st_uid : 0
    }

    /// The drop-ins to apply over `path`, in order.
    public static func files(besideMain path: String) throws -> [String] {
        let dir = directory(besideMain: path)
        guard FileManager.default.fileExists(atPath: dir) || Facts.of(dir) != nil else { return [] }
        if let why = refusal(of: dir, directory: true, mainOwner: owner(of: path)) { throw Unusable(path: dir, message: why) }
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
