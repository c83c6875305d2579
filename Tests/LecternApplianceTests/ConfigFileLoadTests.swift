import Foundation
import LecternModel
import LecternProtocol
import LecternService
import LecternTestSupport
import XCTest

/// Valid config files, reading a file from disk, and the shipped file and the docs
/// agreeing with the checker (the problems themselves: `ConfigFileTests`).
final class ConfigFileLoadTests: XCTestCase {
    /// Two valid passcodes, for files that test something else.
    let passcodes = """
        passcode = "tulip-harbour"
        moderator_passcode = "granite-lantern"
        """

    func problems(_ text: String) -> [ConfigProblem] { ConfigFile.parse(text).problems }

    // MARK: valid files

    func testAValidFullFileGivesTheExpectedConfig() throws {
        let hash = PasscodeHash.make(passcode: "tulip-harbour", rounds: 10_000)
        let r = ConfigFile.parse(
            """
            # every key
            room = "Room 4.12"
            port = 7500
            passcode = "\(hash)"
            moderator_passcode = "a longer moderator passcode"   # spaces count
            floor = "open"
            passcode_min_length = 8
            grace_period = 90.5
            max_clients = 40
            keepalive_timeout = 10
            data_dir = "/srv/lectern"
            max_upload_mb = 200
            disk_quota_mb = 2048
            page_cache_mb = 128

            [display]  # the output
            output = "kms"
            card = "/dev/dri/card1"
            connector = "HDMI-A-2"
            mode = "1280x720@50"
            background = "#102030"
            overscan = 2.5
            """)
        XCTAssertEqual(r.problems, [])
        XCTAssertEqual(r.warnings, [])
        var expected = Config()
        expected.room = "Room 4.12"
        expected.port = 7500
        expected.passcode = hash
        expected.moderatorPasscode = "a longer moderator passcode"
        expected.floor = .open
        expected.passcodeMinLength = 8
        expected.gracePeriod = 90.5
        expected.maxClients = 40
        expected.keepaliveTimeout = 10
        expected.dataDir = "/srv/lectern"
        expected.maxUploadMB = 200
        expected.diskQuotaMB = 2048
        expected.pageCacheMB = 128
        expected.display = .kms
        expected.card = "/dev/dri/card1"
        expected.connector = "HDMI-A-2"
        expected.mode = RequestedMode(width: 1280, height: 720, refresh: 50)
        expected.background = RGB(0x10, 0x20, 0x30)
        expected.overscanPercent = 2.5
        XCTAssertEqual(r.config, expected)
        XCTAssertEqual(r.config.maxUploadBytes, 200 << 20)
        XCTAssertEqual(r.config.cardPath, "/dev/dri/card1")
        XCTAssertEqual(r.config.connector, "HDMI-A-2")
        XCTAssertEqual(r.config.mode?.displayMode, DisplayMode(width: 1280, height: 720, refresh: 50))
        XCTAssertEqual(r.config.pageCacheBytes, 128 << 20)
        XCTAssertNil(Config().cardPath)
        XCTAssertNil(Config().mode)
        var short = Config(); short.card = "card0"
        XCTAssertEqual(short.cardPath, "/dev/dri/card0")
    }

    func testKeysLeftOutTakeTheirDefaults() {
        let r = ConfigFile.parse(passcodes)
        XCTAssertEqual(r.problems, [])
        var expected = Config()
        expected.passcode = "tulip-harbour"
        expected.moderatorPasscode = "granite-lantern"
        XCTAssertEqual(r.config, expected)
        XCTAssertEqual(expected.port, 7420)
        XCTAssertEqual(expected.floor, .moderated)
        XCTAssertEqual(expected.dataDir, "/var/lib/lectern")
    }

    func testEveryProblemIsReportedAtOnceSortedByLine() {
        let ps = problems(
            """
            max_clients = 0
            passcode = "abc"
            [display]
            overscan = 40
            mode = "huge"
            """)
        XCTAssertEqual(ps.map(\.line), [nil, 1, 2, 4, 5], "\(ps)")
        XCTAssertEqual(ps.first?.message, "'moderator_passcode' is empty but floor is \"moderated\": set one, or use floor = \"open\"")
    }

    func testLinesAreRightWithCRLFCommentsDottedKeysAndInlineTables() {
        let crlf = "room = \"A\"\r\n# comment\r\n\r\nprot = 1\r\n\(passcodes.replacingOccurrences(of: "\n", with: "\r\n"))\r\n"
        XCTAssertEqual(problems(crlf), [ConfigProblem(line: 4, "unknown key 'prot' (did you mean 'port'?)")])
        let dotted = "\(passcodes)\ndisplay.mode = \"1920x1080\"\ndisplay.overscan = 99\n"
        XCTAssertEqual(problems(dotted), [ConfigProblem(line: 4, "'display.overscan' must be from 0 to 25, not 99")])
        let inline = "\(passcodes)\n\ndisplay = { mode = \"1920x1080\", overscan = 99 }\n"
        XCTAssertEqual(problems(inline), [ConfigProblem(line: 4, "'display.overscan' must be from 0 to 25, not 99")])
        let multiline = "notes = \"\"\"\nport = 1\n\"\"\"\n\(passcodes)\n"
        XCTAssertEqual(problems(multiline), [ConfigProblem(line: 1, "unknown key 'notes'")])
        let headerComment = "\(passcodes)\n[display] # the output\nprot = 1\n"
        XCTAssertEqual(problems(headerComment).map(\.line), [4])
    }

    // MARK: reading the file

    func testLoadWarnsWhenOthersCanReadTheFile() throws {
        let dir = Fixtures.tempDir("config")
        let path = dir + "/lectern.toml"
        try writeFile(path, passcodes + "\n", mode: 0o644)
        let open = try ConfigFile.load(path: path)
        XCTAssertEqual(open.warnings, [ConfigProblem(line: nil, "\(path) is readable by every user and holds the passcodes: chmod 640 it (owner root, group lectern)")])
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: path)
        XCTAssertEqual(
            try ConfigFile.load(path: path).warnings.map(\.message),
            ["\(path) is writable by every user: anyone on this machine can change the passcodes: chmod 640 it (owner root, group lectern)"])
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        let closed = try ConfigFile.load(path: path)
        XCTAssertEqual(closed.warnings, [])
        XCTAssertEqual(closed.config.passcode, "tulip-harbour")
    }

    func testLoadThrowsEveryProblemOfAnInvalidFile() throws {
        let dir = Fixtures.tempDir("config")
        let path = dir + "/lectern.toml"
        try writeFile(path, "room = \"A\"\nprot = 1\npasscode = \"abc\"\nfloor = \"open\"\n", mode: 0o644)
        XCTAssertThrowsError(try ConfigFile.load(path: path)) { error in
            guard let invalid = error as? ConfigFile.Invalid else { return XCTFail("\(error)") }
            XCTAssertEqual(invalid.problems.map(\.line), [2, 3])
            XCTAssertEqual(invalid.warnings.count, 1, "the permission warning travels with the problems")
            XCTAssertEqual(
                invalid.description,
                """
                \(path) is not valid:
                  line 2: unknown key 'prot' (did you mean 'port'?)
                  line 3: 'passcode' is 3 characters, shorter than passcode_min_length (6)
                """)
        }
        XCTAssertThrowsError(try ConfigFile.load(path: dir + "/missing.toml")) { error in
            XCTAssertEqual((error as? ConfigFile.Invalid)?.problems, [ConfigProblem(line: nil, "the config file does not exist")])
        }
        XCTAssertEqual(ConfigFile.invalidExitStatus, 78, "systemd/lectern.service's RestartPreventExitStatus=")
    }

    // MARK: the shipped file and the docs

    func testTheShippedConfigFailsOnlyOnItsPlaceholderPasscodes() throws {
        let text = try repoFile("board/lectern.toml")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let passcodeLine = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("passcode =") }) + 1
        let moderatorLine = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("moderator_passcode =") }) + 1
        let r = ConfigFile.parse(text)
        XCTAssertEqual(
            r.problems,
            [
                ConfigProblem(
                    line: passcodeLine,
                    "'passcode' is still the placeholder of the installed file: set the room's presenter passcode (plain, or the hash `lectern hash-passcode` prints)"),
                ConfigProblem(
                    line: moderatorLine,
                    "'moderator_passcode' is still the placeholder of the installed file: set the room's moderator passcode (plain, or the hash `lectern hash-passcode` prints)"),
            ])
        XCTAssertEqual(r.warnings, [])
        // Once the admin sets them, the file is valid and gives the defaults.
        let edited = text.replacingOccurrences(of: "\"CHANGE-ME-TOO\"", with: "\"granite-lantern\"")
            .replacingOccurrences(of: "\"CHANGE-ME\"", with: "\"tulip-harbour\"")
        let ok = ConfigFile.parse(edited)
        XCTAssertEqual(ok.problems, [])
        var expected = Config()
        expected.passcode = "tulip-harbour"
        expected.moderatorPasscode = "granite-lantern"
        XCTAssertEqual(ok.config, expected)
    }

    /// Every `#key = value` line of the shipped file, uncommented, is the key's default.
    func testTheShippedConfigsCommentedValuesAreTheDefaults() throws {
        let text = try repoFile("board/lectern.toml")
        var keys: [String] = []
        let uncommented = text.split(separator: "\n", omittingEmptySubsequences: false).map { raw -> String in
            let l = String(raw)
            guard l.hasPrefix("#"), let eq = l.firstIndex(of: "="),
                l[l.index(after: l.startIndex)..<eq].allSatisfy({ $0.isLetter || $0 == "_" || $0 == " " }),
                !l.hasPrefix("# ")
            else { return l }
            keys.append(l.dropFirst().split(separator: "=")[0].trimmingCharacters(in: .whitespaces))
            return String(l.dropFirst())
        }.joined(separator: "\n")
            .replacingOccurrences(of: "\"CHANGE-ME-TOO\"", with: "\"granite-lantern\"")
            .replacingOccurrences(of: "\"CHANGE-ME\"", with: "\"tulip-harbour\"")
        let r = ConfigFile.parse(uncommented)
        XCTAssertEqual(r.problems, [])
        var expected = Config()
        expected.passcode = "tulip-harbour"
        expected.moderatorPasscode = "granite-lantern"
        XCTAssertEqual(r.config, expected)
        // …and the file names every key.
        let all = ConfigFile.topKeys.filter { ConfigFile.sectionKeys[$0] == nil } + ConfigFile.sectionKeys.values.flatMap { $0 }
        for key in all {
            XCTAssertTrue(keys.contains(key) || text.contains("\n\(key) = "), "board/lectern.toml doesn't mention '\(key)'")
        }
    }

    /// docs/config.md's "A full file" example is valid.
    func testTheDocsExampleFileIsValid() throws {
        let doc = try repoFile("docs/config.md")
        let blocks = doc.components(separatedBy: "```toml\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        let example = try XCTUnwrap(blocks.first { $0.contains("[display]") })
        let r = ConfigFile.parse(example)
        XCTAssertEqual(r.problems, [])
        XCTAssertEqual(r.config.room, "Room 4.12")
        XCTAssertTrue(PasscodeHash.isHashForm(r.config.passcode ?? ""))
    }
}
