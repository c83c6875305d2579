import Foundation
import LecternModel
import LecternProtocol
import LecternRender
import LecternService
import LecternTestSupport
import XCTest

/// systemd/lectern.service and friends, checked with systemd's own tools.
final class SystemdUnitTests: XCTestCase {
    /// The unit in a temp dir, its ExecStart= pointing at the lecternd just built
    /// (`systemd-analyze verify` insists the binary exists; /usr/bin/lecternd doesn't here).
    func unitCopy() throws -> String {
        let unit = try repoFile("systemd/lectern.service")
        XCTAssertTrue(unit.contains("\nExecStart=/usr/bin/lecternd "), "the installed unit runs /usr/bin/lecternd")
        let lecternd = try Fixtures.binary("lecternd")
        let path = Fixtures.tempDir("unit") + "/lectern.service"
        try writeFile(path, unit.replacingOccurrences(of: "\nExecStart=/usr/bin/lecternd ", with: "\nExecStart=\(lecternd) "))
        return path
    }

    func testSystemdAnalyzeVerifyIsClean() throws {
        let path = try unitCopy()
        let r = try Fixtures.run("systemd-analyze", ["verify", path])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(r.err.trimmingCharacters(in: .whitespacesAndNewlines), "", "systemd-analyze verify complained")
        XCTAssertEqual(String(decoding: r.out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), "")
    }

    /// `systemd-analyze security` rates the unit "OK" (≤ 2.0); the score is printed for the
    /// record.
    func testSystemdAnalyzeSecurityRatesItOK() throws {
        let path = try unitCopy()
        let r = try Fixtures.run("systemd-analyze", ["security", "--offline=true", "--no-pager", path])
        let out = String(decoding: r.out, as: UTF8.self)
        let summary = try XCTUnwrap(out.split(separator: "\n").first { $0.contains("Overall exposure level") }, out + r.err)
        let score = try XCTUnwrap(summary.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }, String(summary))
        print("systemd-analyze security lectern.service: \(summary)")
        XCTAssertLessThanOrEqual(score, 2.0, String(summary))
        XCTAssertTrue(summary.contains(" OK"), String(summary))
    }

    /// Descriptors, memory and tasks are capped at values a 1 GB board can give, and the
    /// service's own defaults stay under them (issue 12: ~1100 connections used all 1024
    /// descriptors of a unit with no LimitNOFILE=).
    func testTheUnitsResourceLimitsFitABoardAndTheServiceStaysUnderThem() throws {
        let unit = try repoFile("systemd/lectern.service")
        func value(_ key: String) -> String? {
            unit.split(separator: "\n").first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
        }
        let nofile = try XCTUnwrap(value("LimitNOFILE").flatMap { Int($0) }, "LimitNOFILE=")
        let memory = try XCTUnwrap(value("MemoryMax").flatMap { $0.hasSuffix("M") ? Int($0.dropLast()) : nil }, "MemoryMax= in M")
        let tasks = try XCTUnwrap(value("TasksMax").flatMap { Int($0) }, "TasksMax=")
        let c = Config()
        // Every connection a descriptor, the refused ones being told why (32), and room
        // for the store, uploads, the display and FFmpeg.
        XCTAssertGreaterThanOrEqual(nofile, c.maxConnections + 32 + 1024)
        XCTAssertLessThanOrEqual(memory, 768, "a 1 GB board needs room for the OS")
        XCTAssertGreaterThanOrEqual(memory, c.pageCacheMB + 256, "the page cache and the frames must fit")
        // The render workers share the cgroup: each a page's render_memory_mb beyond its
        // own ≈ 30 MB resident, with the service's ≈ 96 MB beside its page cache.
        XCTAssertGreaterThanOrEqual(memory, c.pageCacheMB + 96 + 2 * (c.renderMemoryMB + 30), "the service and both render workers must fit")
        XCTAssertGreaterThanOrEqual(tasks, 32)
        XCTAssertLessThanOrEqual(tasks, 512)
    }

    func testTheUnitHasWhatTheServiceNeeds() throws {
        let unit = try repoFile("systemd/lectern.service")
        let lines = Set(unit.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        for directive in [
            "Type=notify", "NotifyAccess=main", "WatchdogSec=10", "Restart=always",
            "ExecReload=/bin/kill -HUP $MAINPID", "RestartPreventExitStatus=\(ConfigFile.invalidExitStatus)",
            "User=lectern", "SupplementaryGroups=video render audio",
            "StateDirectory=lectern", "ConfigurationDirectory=lectern",
            "DevicePolicy=closed", "DeviceAllow=char-drm rw", "DeviceAllow=char-alsa rw",
            "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes",
            "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK",
            "SystemCallFilter=@system-service", "CapabilityBoundingSet=", "MemoryDenyWriteExecute=yes",
            "WantedBy=multi-user.target",
        ] {
            XCTAssertTrue(lines.contains(directive), "systemd/lectern.service lacks \(directive)")
        }
    }

    /// MemoryDenyWriteExecute=yes is safe: the whole render path (Swift runtime,
    /// Foundation, poppler, cairo, pango, fontconfig) runs under the kernel's MDWE
    /// (prctl PR_SET_MDWE, what systemd's seccomp filter amounts to), which refuses
    /// writable+executable mappings.
    func testTheRenderPathNeedsNoWritableExecutableMemory() throws {
        let script = Fixtures.tempDir("mdwe") + "/mdwe.py"
        try writeFile(
            script,
            """
            import ctypes, os, sys
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(65, 1, 0, 0, 0) != 0:   # PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN
                print("PR_SET_MDWE: " + os.strerror(ctypes.get_errno()), file=sys.stderr); sys.exit(77)
            libc.mmap.restype = ctypes.c_void_p
            p = libc.mmap(None, 4096, 7, 0x22, -1, 0)   # RWX, private anonymous: must fail
            if p is not None and p != ctypes.c_void_p(-1).value:
                print("MDWE did not refuse an RWX mapping", file=sys.stderr); sys.exit(3)
            os.execv(sys.argv[1], sys.argv[1:])
            """)
        let out = Fixtures.tempDir("mdwe") + "/page.png"
        let lectern = try Fixtures.binary("lectern")
        let r = try Fixtures.run(
            "python3",
            [
                script, lectern, "render", repoRoot + "/board/demo/demo-deck.pdf",
                "--page", "2", "--mode", "1280x720", "-o", out,
            ])
        if r.status == 77 { throw XCTSkip("this kernel has no PR_SET_MDWE (Linux 6.3+): \(r.err)") }
        XCTAssertEqual(r.status, 0, "lectern render under MDWE: \(r.err)")
        let frame = try PNG.read(path: out)
        XCTAssertEqual(frame.width, 1280)
    }

    func testSysusersCreatesTheUserInTheVideoAndRenderGroups() throws {
        let root = Fixtures.tempDir("sysusers")
        try FileManager.default.createDirectory(atPath: root + "/etc", withIntermediateDirectories: true)
        try runOK("systemd-sysusers", ["--root=\(root)", repoRoot + "/systemd/lectern.sysusers.conf"])
        let passwd = try String(contentsOfFile: root + "/etc/passwd", encoding: .utf8)
        let group = try String(contentsOfFile: root + "/etc/group", encoding: .utf8)
        let user = try XCTUnwrap(passwd.split(separator: "\n").first { $0.hasPrefix("lectern:") }).split(separator: ":", omittingEmptySubsequences: false)
        XCTAssertEqual(user[5], "/var/lib/lectern")
        XCTAssertEqual(user[6], "/usr/sbin/nologin")
        XCTAssertLessThan(Int(user[2]) ?? 99999, 1000, "a system uid")
        for g in ["video", "render", "audio"] {
            let line = try XCTUnwrap(group.split(separator: "\n").first { $0.hasPrefix("\(g):") })
            XCTAssertTrue(line.split(separator: ":", omittingEmptySubsequences: false).last!.split(separator: ",").contains("lectern"), String(line))
        }
        // And the tmpfiles entry is valid for systemd-tmpfiles.
        try runOK("systemd-tmpfiles", ["--root=\(root)", "--create", repoRoot + "/systemd/lectern.tmpfiles.conf"])
        var isDir: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/var/lib/lectern", isDirectory: &isDir) && isDir.boolValue)
    }

    /// The Avahi static service: _lectern._tcp on the default port, the protocol version in TXT,
    /// and the web remote as _http._tcp.
    func testTheAvahiServiceFileAnnouncesTheProtocol() throws {
        let xml = try repoFile("board/avahi/lectern.service")
        XCTAssertTrue(xml.contains("<type>_lectern._tcp</type>"))
        XCTAssertTrue(xml.contains("<port>\(Config().port)</port>"), "the port must be Config's default")
        XCTAssertTrue(xml.contains("<txt-record>proto=\(lecternProtocolVersion)</txt-record>"))
        // The web remote as _http._tcp on http_port's default.
        XCTAssertTrue(xml.contains("<type>_http._tcp</type>\n    <port>\(try XCTUnwrap(Config().httpPort))</port>"), "the web remote's service")
        // Well-formed XML (avahi-daemon ignores a file it can't parse).
        let doc = try XMLDocumentCheck.parse(xml)
        XCTAssertEqual(doc, "service-group")
    }
}

/// A minimal well-formedness check without FoundationXML: python's parser.
enum XMLDocumentCheck {
    static func parse(_ xml: String) throws -> String {
        let path = Fixtures.tempDir("xml") + "/doc.xml"
        try writeFile(path, xml)
        let r = try runOK("python3", ["-c", "import sys, xml.dom.minidom as m; print(m.parse(sys.argv[1]).documentElement.tagName)", path])
        return r.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
