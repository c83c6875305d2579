import Foundation

/// The sandbox one office conversion runs in (docs/protocol.md §30.6): bubblewrap with
/// every namespace of its own — its own network namespace (only a loopback of its own: no
/// network, not even the host's 127.0.0.1), PID, IPC, UTS, user and cgroup namespaces —
/// a file system built from nothing: the system's programs and libraries read-only
/// (`/usr`, LibreOffice's and the fonts' settings), an empty `/tmp` where the fresh user
/// profile is made, its input directory read-only and its output directory, nothing else
/// (not `/etc/passwd`, not `/home`, not the appliance's data). No capabilities, a session of
/// its own, killed with the service. `prlimit` sets its rlimits before bubblewrap starts:
/// memory (the data segment), processor time, file size, open files, no core dumps.
public struct OfficeSandbox: Sendable {
    /// This sandbox's directory on the host: `in/` (bound read-only as /job/in), `out/`
    /// (bound as /job/out) and the driver (bound read-only as /driver.py).
    public let directory: String
    public let tools: OfficeConverter.Tools
    public let limits: ConversionLimits

    public var inputDirectory: String { directory + "/in" }
    public var outputDirectory: String { directory + "/out" }
    /// Where the sandbox sees its input and output.
    public static let inside = (input: "/job/in/", output: "/job/out/")

    public init(directory: String, tools: OfficeConverter.Tools, limits: ConversionLimits) {
        self.directory = directory
        self.tools = tools
        self.limits = limits
    }

    /// Makes the directories and writes the driver.
    func prepare() throws {
        let fm = FileManager.default
        try? fm.removeItem(atPath: directory)
        for d in [directory, inputDirectory, outputDirectory] {
            try fm.createDirectory(atPath: d, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        try Data(OfficeDriverScript.text.utf8).write(to: URL(fileURLWithPath: directory + "/driver.py"))
    }

    /// The command line: prlimit, then bubblewrap, then the driver.
    public var arguments: [String] {
        let mb = UInt64(limits.memoryMB) * 1_000_000
        var a = [
            tools.prlimit, "--data=\(mb)", "--cpu=\(limits.cpuSeconds)", "--fsize=\(Self.maxFileBytes)", "--nofile=512", "--core=0", "--",
            tools.bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
        ]
        // LibreOffice's settings (its registry lives under /etc on Debian) and the fonts'.
        for dir in ["/etc/libreoffice", "/etc/fonts", "/var/cache/fontconfig"] where FileManager.default.fileExists(atPath: dir) {
            a += ["--ro-bind", dir, dir]
        }
        if FileManager.default.fileExists(atPath: "/etc/ld.so.cache") { a += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"] }
        a += [
            "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/dev/shm",
            "--ro-bind", inputDirectory, "/job/in", "--bind", outputDirectory, "/job/out", "--ro-bind", directory + "/driver.py", "/driver.py",
            "--chdir", "/tmp", "--clearenv",
            "--setenv", "HOME", "/tmp/home", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8", "--setenv", "TMPDIR", "/tmp",
            "--setenv", "SAL_USE_VCLPLUGIN", "svp",
            tools.python, "/driver.py", tools.soffice, String(UInt64(limits.memoryMB) * 1_000_000),
        ]
        return a
    }

    /// The largest file the sandbox may write (RLIMIT_FSIZE): the PDF, LibreOffice's temporary files.
    public static let maxFileBytes: UInt64 = 1_000_000_000

    /// Why a sandbox can't be made here (nil: it can): bubblewrap tried once with the
    /// namespaces a conversion uses, running `true` (a unit that forbids user namespaces,
    /// a kernel without them). Its error output is the reason.
    public static func problem(tools: OfficeConverter.Tools, scratch: String) -> String? {
        let args = [
            tools.bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
            "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "/usr/bin/true",
        ]
        guard let p = try? SandboxSpawner.shared.spawn(args, errors: scratch) else { return "bubblewrap can't be started" }
        let status = p.reap()
        let said = (try? String(contentsOfFile: scratch, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        try? FileManager.default.removeItem(atPath: scratch)
        guard status != 0 else { return nil }
        return "the sandbox can't be made here (bubblewrap: \(said.prefix(200)); the service must be allowed user namespaces)"
    }
}
