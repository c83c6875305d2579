import Foundation
import LecternTestSupport
import XCTest

/// `make deb`'s packaging step, board/deb/build-deb, run on the debug binaries this test
/// run was built with (a release build is too slow for a unit test; `make deb` does that).
final class DebPackageTests: XCTestCase {
    static let version = "0.0.1~test"
    nonisolated(unsafe) static var built: Result<String, Error>?

    /// Builds the package once for the whole class.
    func package() throws -> String {
        if Self.built == nil {
            Self.built = Result {
                let bindir = (try Fixtures.binary("lecternd") as NSString).deletingLastPathComponent
                let out = Fixtures.tempDir("deb")
                let r = try runOK(
                    repoRoot + "/board/deb/build-deb",
                    [
                        "--bindir", bindir, "--out", out, "--version", Self.version,
                        "--compress", "none", "--allow-dynamic-swift",
                    ])
                return r.out.trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        return try Self.built!.get()
    }

    var arch: String { get throws { try runOK("dpkg", ["--print-architecture"]).out.trimmingCharacters(in: .whitespacesAndNewlines) } }

    /// Every file of the web remote's folder (index.html, lectern.css, and lectern.js with the
    /// ES modules beside it and in its folders, `core/` and `app/`): the package installs them all.
    func webFiles() throws -> [String] {
        let web = repoRoot + "/Sources/LecternService/Web"
        var out: [String] = []
        for folder in ["", "core/", "app/"] {   // WebAssets.folders
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: web + "/" + folder, isDirectory: &isDir), isDir.boolValue else { continue }
            for name in try FileManager.default.contentsOfDirectory(atPath: web + "/" + folder) where !name.hasPrefix(".") {
                var sub: ObjCBool = false
                FileManager.default.fileExists(atPath: web + "/" + folder + name, isDirectory: &sub)
                if !sub.boolValue { out.append(folder + name) }
            }
        }
        return out.sorted()
    }

    func field(_ name: String, in info: String) -> String? {
        info.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(name + ":") }
            .map { String($0.trimmingCharacters(in: .whitespaces).dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
    }

    func testBuildDebRefusesBinariesThatNeedTheToolchainsSwiftRuntime() throws {
        let bindir = (try Fixtures.binary("lecternd") as NSString).deletingLastPathComponent
        let r = try Fixtures.run(repoRoot + "/board/deb/build-deb", ["--bindir", bindir, "--out", Fixtures.tempDir("deb")])
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.err.contains("build with -static-stdlib"), r.err)
        let missing = try Fixtures.run(repoRoot + "/board/deb/build-deb", ["--bindir", "/nonexistent"])
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(missing.err.contains("/nonexistent/lecternd is missing"), missing.err)
    }

    func testInfoNamesThePackageItsDependenciesConffilesAndScripts() throws {
        let deb = try package()
        XCTAssertEqual((deb as NSString).lastPathComponent, "lectern_\(Self.version)_\(try arch).deb")
        let info = try runOK("dpkg-deb", ["--info", deb]).out
        XCTAssertEqual(field("Package", in: info), "lectern")
        XCTAssertEqual(field("Version", in: info), Self.version)
        XCTAssertEqual(field("Architecture", in: info), try arch)
        let depends = try XCTUnwrap(field("Depends", in: info)).split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).split(separator: " ")[0]
        }
        for p in [
            "adduser", "procps", "libpoppler-glib8", "libcairo2", "libpango-1.0-0", "libpangocairo-1.0-0", "libdrm2",
            "libavformat59", "libavcodec59", "libswscale6", "libavutil57", "libswresample4", "libasound2", "libqrencode4", "libjpeg62-turbo", "fonts-dejavu-core",
        ] {
            // procps: /bin/kill, the unit's ExecReload (a minimal Debian has no other).
            XCTAssertTrue(depends.contains(Substring(p)), "Depends lacks \(p)")
        }
        XCTAssertEqual(field("Recommends", in: info), "avahi-daemon")
        for script in ["postinst", "prerm", "postrm", "conffiles", "control"] {
            XCTAssertTrue(info.contains(" \(script)"), "no \(script) in the control archive:\n\(info)")
        }
        let dir = Fixtures.tempDir("ctrl")
        try runOK("dpkg-deb", ["--control", deb, dir])
        XCTAssertEqual(
            try String(contentsOfFile: dir + "/conffiles", encoding: .utf8),
            "/etc/lectern/lectern.toml\n/etc/avahi/services/lectern.service\n")
        for s in ["postinst", "prerm", "postrm"] {
            let attrs = try FileManager.default.attributesOfItem(atPath: dir + "/" + s)
            XCTAssertEqual((attrs[.posixPermissions] as? NSNumber)?.intValue, 0o755, s)
            try runOK("sh", ["-n", dir + "/" + s])
        }
    }

    func testContentsPutEveryFileInItsPlaceWithItsMode() throws {
        let listing = try runOK("dpkg-deb", ["--contents", try package()]).out
        var entries: [String: (mode: String, owner: String)] = [:]
        for line in listing.split(separator: "\n") {
            let cols = line.split(separator: " ", omittingEmptySubsequences: true)
            guard cols.count >= 6 else { continue }
            entries[String(cols[5])] = (String(cols[0]), String(cols[1]))
        }
        let expected: [(String, String)] =
            try [
                ("./usr/bin/lecternd", "-rwxr-xr-x"),
                ("./usr/bin/lectern", "-rwxr-xr-x"),
                ("./lib/systemd/system/lectern.service", "-rw-r--r--"),
                ("./usr/lib/sysusers.d/lectern.conf", "-rw-r--r--"),
                ("./usr/lib/tmpfiles.d/lectern.conf", "-rw-r--r--"),
                ("./etc/lectern/lectern.toml", "-rw-r-----"),
                ("./etc/avahi/services/lectern.service", "-rw-r--r--"),
                ("./usr/share/doc/lectern/config.md", "-rw-r--r--"),
                ("./usr/share/lectern/web/index.html", "-rw-r--r--"),
                ("./usr/share/lectern/web/lectern.js", "-rw-r--r--"),
                ("./usr/share/lectern/web/lectern.css", "-rw-r--r--"),
            ] + webFiles().map { ("./usr/share/lectern/web/" + $0, "-rw-r--r--") }
        for (path, mode) in expected {
            let e = try XCTUnwrap(entries[path], "\(path) is not in the package:\n\(listing)")
            XCTAssertEqual(e.mode, mode, path)
            XCTAssertEqual(e.owner, "root/root", path)
        }
        // Nothing else under /etc, nothing outside /etc, /lib and /usr.
        let etc: Set<String> = [
            "./etc/", "./etc/lectern/", "./etc/lectern/lectern.toml",
            "./etc/avahi/", "./etc/avahi/services/", "./etc/avahi/services/lectern.service",
        ]
        for path in entries.keys {
            XCTAssertTrue(path == "./" || etc.contains(path) || path.hasPrefix("./lib/") || path.hasPrefix("./usr/"), "unexpected \(path)")
        }
    }

    /// Every shared library the binaries load (bar the Swift runtime, which release builds
    /// link in) comes from a package in Depends.
    func testDependsCoverEveryLibraryTheBinariesLoad() throws {
        let info = try runOK("dpkg-deb", ["--info", try package()]).out
        let depends = Set(
            try XCTUnwrap(field("Depends", in: info)).split(separator: ",").map {
                String($0.trimmingCharacters(in: .whitespaces).split(separator: " ")[0])
            })
        let ldconfig = try runOK("ldconfig", ["-p"]).out
        for binary in ["lecternd", "lectern"] {
            let dynamic = try runOK("readelf", ["-d", try Fixtures.binary(binary)]).out
            let needed = dynamic.split(separator: "\n").compactMap { line -> String? in
                guard line.contains("(NEEDED)"), let a = line.firstIndex(of: "["), let b = line.firstIndex(of: "]") else { return nil }
                return String(line[line.index(after: a)..<b])
            }
            XCTAssertFalse(needed.isEmpty)
            for soname in needed where !["libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocksRuntime"].contains(where: { soname.hasPrefix($0) }) {
                // ldconfig -p: "\tlibdrm.so.2 (libc6,x86-64) => /lib/x86_64-linux-gnu/libdrm.so.2"
                let candidates = ldconfig.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix(soname + " (") }
                let native = candidates.first { $0.contains("x86-64") || $0.contains("AArch64") } ?? candidates.first
                let path = try XCTUnwrap(native.flatMap { $0.components(separatedBy: "=> ").last }, "\(soname) not in ldconfig's cache")
                var owner = try Fixtures.run("dpkg", ["-S", path])
                if owner.status != 0 {   // merged /usr: dpkg may know it by the other name
                    let other = path.hasPrefix("/usr/") ? String(path.dropFirst(4)) : "/usr" + path
                    owner = try Fixtures.run("dpkg", ["-S", other])
                }
                XCTAssertEqual(owner.status, 0, "no package owns \(path)")
                let package = String(String(decoding: owner.out, as: UTF8.self).split(separator: ":")[0])
                XCTAssertTrue(depends.contains(package), "\(binary) loads \(soname) from \(package), which is not in Depends")
            }
        }
    }

    /// The package installs into a scratch root (dpkg --root, the maintainer scripts run
    /// chrootless with DPKG_ROOT) and purges without leaving anything of its own.
    func testInstallsIntoAScratchRootAndPurgesCleanly() throws {
        guard getuid() == 0 else { throw XCTSkip("dpkg --root with maintainer scripts needs root (CI runs as root)") }
        let deb = try package()
        let root = Fixtures.tempDir("root")
        for d in ["var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers"] {
            try FileManager.default.createDirectory(atPath: root + "/" + d, withIntermediateDirectories: true)
        }
        for f in ["status", "available"] { FileManager.default.createFile(atPath: root + "/var/lib/dpkg/" + f, contents: Data()) }
        let dpkg = ["--root=\(root)", "--force-not-root", "--force-depends", "--force-script-chrootless"]
        try runOK("dpkg", dpkg + ["-i", deb])

        let fm = FileManager.default
        for f in [
            "usr/bin/lecternd", "usr/bin/lectern", "lib/systemd/system/lectern.service", "etc/lectern/lectern.toml",
            "etc/avahi/services/lectern.service", "usr/lib/sysusers.d/lectern.conf",
        ] {
            XCTAssertTrue(fm.fileExists(atPath: root + "/" + f), "\(f) not installed")
        }
        // postinst: the user (groups video and render), the data dir, the config's group, the unit enabled.
        let passwd = try String(contentsOfFile: root + "/etc/passwd", encoding: .utf8)
        let group = try String(contentsOfFile: root + "/etc/group", encoding: .utf8)
        let uid = try XCTUnwrap(passwd.split(separator: "\n").first { $0.hasPrefix("lectern:") }?.split(separator: ":")[2]).description
        let gid = try XCTUnwrap(group.split(separator: "\n").first { $0.hasPrefix("lectern:") }?.split(separator: ":")[2]).description
        for g in ["video", "render"] {
            XCTAssertTrue(group.split(separator: "\n").contains { $0.hasPrefix("\(g):") && $0.hasSuffix("lectern") }, group)
        }
        let conf = try fm.attributesOfItem(atPath: root + "/etc/lectern/lectern.toml")
        XCTAssertEqual((conf[.posixPermissions] as? NSNumber)?.intValue, 0o640)
        XCTAssertEqual((conf[.ownerAccountID] as? NSNumber)?.intValue, 0)
        XCTAssertEqual((conf[.groupOwnerAccountID] as? NSNumber)?.description, gid)
        let data = try fm.attributesOfItem(atPath: root + "/var/lib/lectern")
        XCTAssertEqual((data[.ownerAccountID] as? NSNumber)?.description, uid)
        XCTAssertEqual((data[.posixPermissions] as? NSNumber)?.intValue, 0o750)
        let wants = root + "/etc/systemd/system/multi-user.target.wants/lectern.service"
        XCTAssertEqual(try fm.destinationOfSymbolicLink(atPath: wants), "/lib/systemd/system/lectern.service")

        // Upload something, then remove: the data stays until purge, the conffile too.
        try writeFile(root + "/var/lib/lectern/state.json", "{}")
        try runOK("dpkg", dpkg + ["--remove", "lectern"])
        XCTAssertFalse(fm.fileExists(atPath: root + "/usr/bin/lecternd"))
        XCTAssertTrue(fm.fileExists(atPath: root + "/etc/lectern/lectern.toml"))
        XCTAssertTrue(fm.fileExists(atPath: root + "/var/lib/lectern/state.json"))

        try runOK("dpkg", dpkg + ["--purge", "lectern"])
        let left = try fm.subpathsOfDirectory(atPath: root).filter { !$0.hasPrefix("var/lib/dpkg") }
        XCTAssertEqual(left.filter { $0.contains("lectern") }, [], "left behind after purge")
        // What may remain: the user database (the system user is kept, as Debian does) and
        // empty directories deb-systemd-helper made.
        let allowed: Set<String> = [
            "etc", "etc/.pwd.lock", "etc/passwd", "etc/group", "etc/shadow", "etc/gshadow",
            "etc/systemd", "etc/systemd/system", "var", "var/lib", "var/lib/systemd",
        ]
        XCTAssertEqual(Set(left).subtracting(allowed), [], "left behind after purge")
        let status = try runOK("dpkg", ["--root=\(root)", "-l"]).out
        XCTAssertFalse(status.split(separator: "\n").contains { $0.hasPrefix("ii  lectern") || $0.hasPrefix("rc  lectern") }, status)
    }

    /// postinst on a real system (no DPKG_ROOT): adduser --system --group, then the user
    /// joins video and the render group only if it exists. Run against stubs that log
    /// their arguments, so this machine's users are untouched.
    func testPostinstCreatesTheUserWithAdduser() throws {
        let dir = Fixtures.tempDir("postinst")
        let bin = dir + "/bin", log = dir + "/log"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        func stub(_ name: String, _ body: String) throws {
            try writeFile(bin + "/" + name, "#!/bin/sh\necho \"\(name) $*\" >>\(log)\n\(body)\n", mode: 0o755)
        }
        try stub(
            "getent",
            """
            case "$1 $2" in
              "passwd lectern") [ -f \(dir)/user ] && echo "lectern:x:990:990::/var/lib/lectern:/usr/sbin/nologin" ;;
              "group lectern") [ -f \(dir)/user ] && echo "lectern:x:990:" ;;
              "group video") echo "video:x:44:" ;;
              *) exit 2 ;;
            esac
            """)
        try stub("adduser", "case \"$*\" in *--system*) touch \(dir)/user ;; esac")
        for name in ["install", "chown", "chmod", "deb-systemd-helper", "deb-systemd-invoke", "systemctl", "systemd-sysusers", "mkdir"] {
            try stub(name, "exit 0")
        }
        try stub("dpkg-statoverride", "exit 1")
        for real in ["cut", "awk", "touch"] {
            try FileManager.default.createSymbolicLink(atPath: bin + "/" + real, withDestinationPath: "/usr/bin/" + real)
        }
        let r = try Fixtures.run("env", ["-i", "PATH=\(bin)", "/bin/sh", repoRoot + "/board/deb/postinst", "configure"])
        XCTAssertEqual(r.status, 0, r.err)
        let calls = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertTrue(calls.contains("adduser --system --group --quiet --home /var/lib/lectern --no-create-home lectern"), "\(calls)")
        XCTAssertTrue(calls.contains("adduser --quiet lectern video"), "\(calls)")
        XCTAssertFalse(calls.contains { $0.hasPrefix("adduser") && $0.hasSuffix(" render") }, "render doesn't exist here: \(calls)")
        XCTAssertTrue(calls.contains("install -d -m 0750 -o 990 -g 990 /var/lib/lectern"), "\(calls)")
        XCTAssertTrue(calls.contains("deb-systemd-helper enable lectern.service") || calls.contains("deb-systemd-helper --quiet was-enabled lectern.service"), "\(calls)")

        // Run again (an upgrade): the user exists, no second adduser --system.
        try "".write(toFile: log, atomically: true, encoding: .utf8)
        let again = try Fixtures.run("env", ["-i", "PATH=\(bin)", "/bin/sh", repoRoot + "/board/deb/postinst", "configure", "0.0.1"])
        XCTAssertEqual(again.status, 0, again.err)
        let calls2 = try String(contentsOfFile: log, encoding: .utf8)
        XCTAssertFalse(calls2.contains("--system"), calls2)
    }
}
