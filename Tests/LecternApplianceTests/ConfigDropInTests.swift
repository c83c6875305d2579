import Foundation
import LecternModel
import LecternService
import LecternTestSupport
import XCTest

/// Config drop-ins (`lectern.d/*.toml` beside the main file): which value wins, and that
/// every problem names the file it is in (`lecternd --check-config`).
final class ConfigDropInTests: XCTestCase {
    let passcodes = """
        passcode = "tulip-harbour"
        moderator_passcode = "granite-lantern"
        """

    /// A main file and its lectern.d, every file mode 640; returns the main file's path.
    func configDir(main: String, dropIns: [String: String]) throws -> String {
        let dir = Fixtures.tempDir("dropins")
        try writeFile(dir + "/lectern.toml", main, mode: 0o640)
        if !dropIns.isEmpty { try FileManager.default.createDirectory(atPath: dir + "/lectern.d", withIntermediateDirectories: false) }
        for (name, text) in dropIns { try writeFile(dir + "/lectern.d/" + name, text, mode: 0o640) }
        return dir + "/lectern.toml"
    }

    func testLaterFilesWinKeyByKeyAndSectionsMerge() throws {
        let path = try configDir(
            main: """
                room = "Main file"
                port = 7500
                \(passcodes)
                [display]
                mode = "1280x720"
                background = "#102030"
                """,
            dropIns: [
                "10-site.toml": "port = 7600\nfloor = \"open\"\n[display]\nmode = \"1920x1080\"\n",
                "20-room.toml": "room = \"Room 4.12\"\nport = 7700\n",
                // "9-…" sorts after "20-…" (byte order of names, as systemd's drop-ins).
                "9-late.toml": "port = 7900\n",
                // Not drop-ins: ignored even though they would not parse.
                "30-old.toml.dpkg-old": "this is not toml",
                ".30-hidden.toml": "nor this",
                "README": "nor this",
            ])
        let r = try ConfigFile.load(path: path)
        XCTAssertEqual(r.warnings, [])
        XCTAssertEqual(r.config.room, "Room 4.12")
        XCTAssertEqual(r.config.port, 7900)
        XCTAssertEqual(r.config.floor, .open)
        XCTAssertEqual(r.config.mode, RequestedMode(width: 1920, height: 1080), "a drop-in's [display] key replaces the main file's")
        XCTAssertEqual(r.config.background, RGB(parsing: "#102030"), "and the section's other keys stay")
        XCTAssertEqual(r.config.passcode, "tulip-harbour")
        let dir = (path as NSString).deletingLastPathComponent + "/lectern.d/"
        XCTAssertEqual(r.dropIns, [dir + "10-site.toml", dir + "20-room.toml", dir + "9-late.toml"])
    }

    func testNoDropInDirectoryMeansTheMainFileAloneWithItsOldMessages() throws {
        let path = try configDir(main: "prot = 1\n" + passcodes + "\n", dropIns: [:])
        XCTAssertThrowsError(try ConfigFile.load(path: path)) { error in
            let invalid = error as! ConfigFile.Invalid
            XCTAssertEqual(invalid.problems, [ConfigProblem(line: 1, "unknown key 'prot' (did you mean 'port'?)")])
            XCTAssertEqual(invalid.description, "\(path) is not valid:\n  line 1: unknown key 'prot' (did you mean 'port'?)")
        }
    }

    func testEveryProblemNamesTheFileItIsIn() throws {
        let path = try configDir(
            main: "room = \"A\"\n" + passcodes + "\nmax_clients = 300\n",
            dropIns: [
                "10-a.toml": "# site defaults\nprot = 7500\n[display]\noverscan = 30\n",
                "20-b.toml": "room = \"B\"\n\npasscode = \"abc\"\n",
            ])
        let dir = (path as NSString).deletingLastPathComponent + "/lectern.d/"
        XCTAssertThrowsError(try ConfigFile.load(path: path)) { error in
            guard let invalid = error as? ConfigFile.Invalid else { return XCTFail("\(error)") }
            XCTAssertEqual(
                invalid.problems,
                [
                    ConfigProblem(line: 4, "'max_clients' must be from 1 to 254, not 300", file: path),
                    ConfigProblem(line: 2, "unknown key 'prot' (did you mean 'port'?)", file: dir + "10-a.toml"),
                    ConfigProblem(line: 4, "'display.overscan' must be from 0 to 25, not 30", file: dir + "10-a.toml"),
                    // The passcode the main file set is replaced: the problem is where the value in force is.
                    ConfigProblem(line: 3, "'passcode' is 3 characters, shorter than passcode_min_length (6)", file: dir + "20-b.toml"),
                ])
            XCTAssertEqual(
                invalid.description,
                """
                the config (\(path) and 2 drop-ins) is not valid:
                  \(path):4: 'max_clients' must be from 1 to 254, not 300
                  \(dir)10-a.toml:2: unknown key 'prot' (did you mean 'port'?)
                  \(dir)10-a.toml:4: 'display.overscan' must be from 0 to 25, not 30
                  \(dir)20-b.toml:3: 'passcode' is 3 characters, shorter than passcode_min_length (6)
                """)
        }
    }

    func testASyntaxErrorInADropInIsReportedInThatFileAlone() throws {
        let path = try configDir(main: passcodes + "\n", dropIns: ["10-ok.toml": "port = 7500\n", "50-broken.toml": "room = \"A\"\nport = \n"])
        let dir = (path as NSString).deletingLastPathComponent + "/lectern.d/"
        XCTAssertThrowsError(try ConfigFile.load(path: path)) { error in
            let problems = (error as! ConfigFile.Invalid).problems
            XCTAssertEqual(problems.count, 1, "\(problems)")
            XCTAssertEqual(problems.first?.file, dir + "50-broken.toml")
            XCTAssertEqual(problems.first?.line, 2)
            XCTAssertTrue(problems.first?.message.hasPrefix("TOML syntax") ?? false, "\(problems)")
        }
    }

    func testUnreadableAndHostileDropIns() throws {
        // A world-readable drop-in may hold a passcode: warned about like the main file.
        let path = try configDir(main: passcodes + "\n", dropIns: ["10-room.toml": "room = \"B\"\n"])
        let dir = (path as NSString).deletingLastPathComponent + "/lectern.d/"
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: dir + "10-room.toml")
        XCTAssertEqual(
            try ConfigFile.load(path: path).warnings.map(\.message),
            ["\(dir)10-room.toml is readable by every user and holds the passcodes: chmod 640 it (owner root, group lectern)"])
        // Not UTF-8, a directory named .toml, and too many files: each a problem with its file.
        try Data([0xFF, 0xFE, 0x00]).write(to: URL(fileURLWithPath: dir + "20-bin.toml"))
        try FileManager.default.createDirectory(atPath: dir + "30-dir.toml", withIntermediateDirectories: false)
        XCTAssertThrowsError(try ConfigFile.load(path: path)) { error in
            XCTAssertEqual(
                (error as! ConfigFile.Invalid).problems,
                [
                    ConfigProblem(line: nil, "the file is not UTF-8 text", file: dir + "20-bin.toml"),
                    ConfigProblem(line: nil, "is not a regular file", file: dir + "30-dir.toml"),
                ])
        }
        for i in 0..<ConfigDropIns.maxFiles { try writeFile(dir + "x\(i).toml", "", mode: 0o640) }
        XCTAssertThrowsError(try ConfigFile.load(path: path)) { error in
            XCTAssertEqual((error as! ConfigFile.Invalid).problems.first?.file, String(dir.dropLast()))
            XCTAssertTrue((error as! ConfigFile.Invalid).problems.first?.message.contains("more than \(ConfigDropIns.maxFiles)") ?? false)
        }
    }

    func testCheckConfigPrintsTheFileOfEachProblemAndTheDropInsItMerged() throws {
        let path = try configDir(main: passcodes + "\n", dropIns: ["20-room.toml": "room = \"Room 4.12\"\n"])
        let ok = try Fixtures.run(try Fixtures.binary("lecternd"), ["--config", path, "--check-config"])
        XCTAssertEqual(ok.status, 0, ok.err)
        let dir = (path as NSString).deletingLastPathComponent + "/lectern.d/"
        XCTAssertEqual(String(decoding: ok.out, as: UTF8.self), "\(path): OK\n  merged over it: \(dir)20-room.toml\n")
        try writeFile(dir + "30-bad.toml", "\nmax_clients = \"many\"\n", mode: 0o640)
        let bad = try Fixtures.run(try Fixtures.binary("lecternd"), ["--config", path, "--check-config"])
        XCTAssertEqual(bad.status, ConfigFile.invalidExitStatus)
        XCTAssertTrue(bad.err.contains("\(dir)30-bad.toml:2: 'max_clients' must be a whole number, not a string (\"many\")"), bad.err)
    }

    /// Issue 25, finding 10: who may change a drop-in, as a table (no files): root or the
    /// main file's owner, writable by the owner alone, no symlink, the right kind.
    func testWhoMayChangeADropInTable() {
        typealias F = ConfigDropIns.Facts
        let rows: [(F, directory: Bool, main: uid_t, refused: String?)] = [
            (F(kind: .regular, owner: 0, mode: 0o640), false, 0, nil),
            (F(kind: .regular, owner: 1000, mode: 0o600), false, 1000, nil),   // the main file's owner
            (F(kind: .regular, owner: 0, mode: 0o644), false, 1000, nil),   // readable: a warning elsewhere, not a refusal
            (F(kind: .regular, owner: 1001, mode: 0o640), false, 1000, "owned by uid 1001"),
            (F(kind: .regular, owner: 1001, mode: 0o640), false, 0, "owned by uid 1001, not root"),
            (F(kind: .regular, owner: 0, mode: 0o660), false, 0, "writable by its group"),
            (F(kind: .regular, owner: 0, mode: 0o642), false, 0, "writable by every user"),
            (F(kind: .symlink, owner: 0, mode: 0o777), false, 0, "symbolic link"),
            (F(kind: .other, owner: 0, mode: 0o640), false, 0, "not a regular file"),
            (F(kind: .directory, owner: 0, mode: 0o750), false, 0, "not a regular file"),
            (F(kind: .directory, owner: 0, mode: 0o750), true, 0, nil),
            (F(kind: .directory, owner: 0, mode: 0o1777), true, 0, "writable by every user"),
            (F(kind: .directory, owner: 0, mode: 0o770), true, 0, "writable by its group"),
            (F(kind: .symlink, owner: 0, mode: 0o777), true, 0, "symbolic link"),
            (F(kind: .regular, owner: 0, mode: 0o640), true, 0, "is not a directory"),
        ]
        for (n, r) in rows.enumerated() {
            let why = ConfigDropIns.refusal(r.0, directory: r.directory, mainOwner: r.main)
            if let expected = r.refused {
                XCTAssertTrue(why?.contains(expected) == true, "row \(n): \(why ?? "allowed")")
            } else {
                XCTAssertNil(why, "row \(n)")
            }
        }
    }

    /// The same with real files: each refused file is a problem naming it, with why; a
    /// refused directory stops the whole config; `--check-config` prints it (exit 78).
    func testSymlinksWritableFilesAndOtherOwnersAreRefused() throws {
        let path = try configDir(main: passcodes + "\n", dropIns: ["10-room.toml": "room = \"B\"\n"])
        let base = (path as NSString).deletingLastPathComponent
        let dir = base + "/lectern.d/"
        XCTAssertNoThrow(try ConfigFile.load(path: path))
        // A symlink to a file elsewhere, a group-writable file, a FIFO, a file of another user.
        try writeFile(base + "/elsewhere.toml", "passcode = \"attacker-chosen\"\n", mode: 0o640)
        try FileManager.default.createSymbolicLink(atPath: dir + "20-link.toml", withDestinationPath: base + "/elsewhere.toml")
        try writeFile(dir + "30-group.toml", "room = \"C\"\n", mode: 0o660)
        XCTAssertEqual(mkfifo(dir + "40-fifo.toml", 0o640), 0)
        try writeFile(dir + "50-other.toml", "room = \"D\"\n", mode: 0o640)
        let root = geteuid() == 0
        if root { XCTAssertEqual(chown(dir + "50-other.toml", 65534, 0), 0) }
        XCTAssertThrowsError(try ConfigFile.load(path: path)) { error in
            let problems = (error as! ConfigFile.Invalid).problems
            XCTAssertEqual(problems.map(\.file), [dir + "20-link.toml", dir + "30-group.toml", dir + "40-fifo.toml"] + (root ? [dir + "50-other.toml"] : []))
            guard problems.count >= 3 else { return XCTFail("\(problems)") }
            XCTAssertTrue(problems[0].message.contains("symbolic link"), problems[0].message)
            XCTAssertTrue(problems[1].message.contains("writable by its group"), problems[1].message)
            XCTAssertTrue(problems[2].message.contains("not a regular file"), problems[2].message)
            if root { XCTAssertTrue(problems[3].message.contains("owned by uid 65534"), problems[3].message) }
        }
        let check = try Fixtures.run(try Fixtures.binary("lecternd"), ["--config", path, "--check-config"])
        XCTAssertEqual(check.status, ConfigFile.invalidExitStatus)
        XCTAssertTrue(check.err.contains("\(dir)20-link.toml: is a symbolic link"), check.err)
        // The directory itself: world-writable, then a symlink to a directory elsewhere.
        for name in ["20-link.toml", "30-group.toml", "40-fifo.toml", "50-other.toml"] { unlink(dir + name) }
        XCTAssertNoThrow(try ConfigFile.load(path: path))
        XCTAssertEqual(chmod(dir, 0o777), 0)
        XCTAssertThrowsError(try ConfigFile.load(path: path)) { error in
            let p = (error as! ConfigFile.Invalid).problems
            XCTAssertEqual(p.first?.file, String(dir.dropLast()))
            XCTAssertTrue(p.first?.message.contains("writable by every user") == true, "\(p)")
        }
        XCTAssertEqual(chmod(dir, 0o750), 0)
        XCTAssertEqual(rename(String(dir.dropLast()), base + "/real.d"), 0)
        try FileManager.default.createSymbolicLink(atPath: String(dir.dropLast()), withDestinationPath: base + "/real.d")
        XCTAssertThrowsError(try ConfigFile.load(path: path)) { error in
            XCTAssertTrue((error as! ConfigFile.Invalid).problems.first?.message.contains("symbolic link") == true)
        }
    }
}
