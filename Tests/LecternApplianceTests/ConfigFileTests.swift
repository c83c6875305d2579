import Foundation
import LecternModel
import LecternProtocol
import LecternService
import LecternTestSupport
import XCTest

/// `lecternd --check-config`'s checker: one test per class of problem, each asserting the
/// line and the message an admin reads.
final class ConfigFileTests: XCTestCase {
    /// Two valid passcodes, for files that test something else.
    let passcodes = """
        passcode = "tulip-harbour"
        moderator_passcode = "granite-lantern"
        """

    func problems(_ text: String) -> [ConfigProblem] { ConfigFile.parse(text).problems }

    // MARK: one class of problem each

    func testUnknownKeysAreNamedWithTheirLineAndASuggestion() {
        let r = ConfigFile.parse(
            """
            room = "Room 4.12"
            prot = 7421
            \(passcodes)
            colour_depth = 24
            mode = "1920x1080"

            [display]
            backgroud = "navy"
            port = 7420
            """)
        XCTAssertEqual(
            r.problems,
            [
                ConfigProblem(line: 2, "unknown key 'prot' (did you mean 'port'?)"),
                ConfigProblem(line: 5, "unknown key 'colour_depth'"),
                ConfigProblem(line: 6, "unknown key 'mode' (did you mean 'display.mode', in the [display] section?)"),
                ConfigProblem(line: 9, "unknown key 'display.backgroud' (did you mean 'display.background'?)"),
                ConfigProblem(line: 10, "unknown key 'display.port' (did you mean the top-level 'port'? top-level keys go above the first [section])"),
            ])
        XCTAssertEqual(r.problems.first?.description, "line 2: unknown key 'prot' (did you mean 'port'?)")
    }

    func testWrongTypesAreNamedWithTheirLine() {
        XCTAssertEqual(
            problems(
                """
                room = 12
                port = "7420"
                \(passcodes)
                grace_period = "60s"
                max_clients = 40.0
                [display]
                overscan = true
                """),
            [
                ConfigProblem(line: 1, "'room' must be a string, not an integer (12)"),
                ConfigProblem(line: 2, "'port' must be a whole number, not a string (\"7420\")"),
                ConfigProblem(line: 5, "'grace_period' must be a number, not a string (\"60s\")"),
                ConfigProblem(line: 6, "'max_clients' must be a whole number: write 40, not 40.0"),
                ConfigProblem(line: 8, "'display.overscan' must be a number, not a boolean (true)"),
            ])
        XCTAssertEqual(
            problems("\(passcodes)\ndisplay = \"kms\"\n"),
            [
                ConfigProblem(
                    line: 3, "'display' must be a table: a [display] section (the output is chosen with output = \"auto\", \"kms\" or \"virtual\" in it), not a string (\"kms\")")
            ])
    }

    func testOutOfRangeAndBadValuesAreNamedWithTheirLine() {
        XCTAssertEqual(
            problems(
                """
                \(passcodes)
                port = 70000
                max_clients = 300
                grace_period = -1
                floor = "free"
                data_dir = "var/lib/lectern"
                [display]
                overscan = 30.5
                mode = "big"
                background = "pink"
                output = "hdmi"
                card = "/dev/sda"
                """),
            [
                ConfigProblem(line: 3, "'port' must be from 1 to 65535, not 70000"),
                ConfigProblem(line: 4, "'max_clients' must be from 1 to 254, not 300"),
                ConfigProblem(line: 5, "'grace_period' must be from 0 to 3600, not -1"),
                ConfigProblem(line: 6, "'floor' must be \"open\" or \"moderated\", not 'free'"),
                ConfigProblem(line: 7, "'data_dir' must be an absolute path, not 'var/lib/lectern'"),
                ConfigProblem(line: 9, "'display.overscan' must be from 0 to 25, not 30.5"),
                ConfigProblem(line: 10, "'display.mode' must be empty (the display's preferred mode) or look like 1920x1080 or 1920x1080@60, not 'big'"),
                ConfigProblem(line: 11, "'display.background' must be \"#rrggbb\", \"#rgb\" or one of black, white, gray, navy, not 'pink'"),
                ConfigProblem(line: 12, "'display.output' must be \"auto\", \"kms\" or \"virtual\", not 'hdmi'"),
                ConfigProblem(
                    line: 13, "'display.card' must be empty (the first card with a display connected), a name like \"card0\" or a path like \"/dev/dri/card0\", not '/dev/sda'"),
            ])
        XCTAssertEqual(
            problems("\(passcodes)\nroom = \"\(String(repeating: "x", count: 81))\"\n"),
            [ConfigProblem(line: 3, "'room' must be at most 80 characters (and 255 bytes of UTF-8), not 81")])
        XCTAssertEqual(
            problems("\(passcodes)\nroom = \"\(String(repeating: "🎦", count: 70))\"\n").map(\.line), [3],
            "70 characters but 280 bytes: more than a hello carries")
        XCTAssertEqual(problems("room = \"  \"\n\(passcodes)\n"), [ConfigProblem(line: 1, "'room' must not be blank")])
        XCTAssertEqual(
            problems("\(passcodes)\ndisk_quota_mb = 1024\nmax_upload_mb = 2048\n"),
            [
                ConfigProblem(line: 4, "'max_upload_mb' (2048) is larger than 'disk_quota_mb' (1024): an upload that size could never be stored")
            ])
    }

    func testAPlainPasscodeShorterThanTheMinimumIsAProblem() {
        XCTAssertEqual(
            problems(
                """
                room = "A"
                passcode = "abc"
                moderator_passcode = "granite-lantern"
                """), [ConfigProblem(line: 2, "'passcode' is 3 characters, shorter than passcode_min_length (6)")])
        // The minimum is configurable, and applies to the moderator passcode too.
        XCTAssertEqual(
            problems(
                """
                passcode_min_length = 10
                passcode = "tulip-harbour"
                moderator_passcode = "granite"
                """), [ConfigProblem(line: 3, "'moderator_passcode' is 7 characters, shorter than passcode_min_length (10)")])
        // Characters, not bytes: five é's are five characters.
        XCTAssertEqual(
            problems("passcode = \"ééééé\"\nfloor = \"open\"\n"),
            [ConfigProblem(line: 1, "'passcode' is 5 characters, shorter than passcode_min_length (6)")])
        // A hash's length is not the passcode's: not checked.
        let hash = PasscodeHash.make(passcode: "abc", rounds: 10_000)
        XCTAssertEqual(problems("passcode = \"\(hash)\"\nfloor = \"open\"\n"), [])
    }

    func testAnEmptyModeratorPasscodeInModeratedModeIsAProblem() {
        XCTAssertEqual(
            problems(
                """
                passcode = "tulip-harbour"
                moderator_passcode = ""
                floor = "moderated"
                """), [ConfigProblem(line: 2, "'moderator_passcode' is empty but floor is \"moderated\": set one, or use floor = \"open\"")])
        // Missing altogether (moderated is the default): the same problem, on no line.
        XCTAssertEqual(
            problems("passcode = \"tulip-harbour\"\n"),
            [ConfigProblem(line: nil, "'moderator_passcode' is empty but floor is \"moderated\": set one, or use floor = \"open\"")])
        // Open floor: nobody moderates, fine.
        XCTAssertEqual(problems("passcode = \"tulip-harbour\"\nmoderator_passcode = \"\"\nfloor = \"open\"\n"), [])
        // The presenter passcode is always needed.
        XCTAssertEqual(
            problems("passcode = \"\"\nfloor = \"open\"\n"),
            [ConfigProblem(line: 1, "'passcode' is empty: nobody could connect")])
        // The same passcode for both roles would let every presenter moderate.
        XCTAssertEqual(
            problems("passcode = \"tulip-harbour\"\nmoderator_passcode = \"tulip-harbour\"\n"),
            [ConfigProblem(line: 2, "'moderator_passcode' is the same as 'passcode': every presenter could moderate")])
    }

    func testAMalformedHashIsAProblem() throws {
        let good = PasscodeHash.make(passcode: "tulip-harbour", rounds: 10_000, salt: Array(repeating: 7, count: 16))
        var parts = good.split(separator: "$").map(String.init)
        XCTAssertEqual(parts.count, 4)
        parts[1] = "1000"
        let weakRounds = parts.joined(separator: "$")
        let shortKey = good.split(separator: "$").prefix(3).joined(separator: "$") + "$AAAA"
        XCTAssertEqual(
            problems(
                """
                passcode = "\(weakRounds)"
                moderator_passcode = "\(shortKey)"
                """),
            [
                ConfigProblem(line: 1, "'passcode' is not a valid hash: the round count 1000 is not a number from 10000 to 10000000"),
                ConfigProblem(line: 2, "'moderator_passcode' is not a valid hash: the key is not base64 of 32 bytes"),
            ])
        XCTAssertEqual(
            problems("passcode = \"pbkdf2-sha256$210000$salt\"\nfloor = \"open\"\n"),
            [
                ConfigProblem(line: 1, "'passcode' is not a valid hash: not of the form pbkdf2-sha256$<rounds>$<salt base64>$<key base64>")
            ])
        // And the good one is fine.
        XCTAssertEqual(problems("passcode = \"\(good)\"\nfloor = \"open\"\n"), [])
    }

    func testATOMLSyntaxErrorIsReportedWithItsLine() throws {
        let r = ConfigFile.parse(
            """
            room = "A"
            passcode = "tulip-harbour"
            port = = 7420
            floor = "open"
            """)
        XCTAssertEqual(r.problems.count, 1)
        let p = try XCTUnwrap(r.problems.first)
        XCTAssertEqual(p.line, 3)
        XCTAssertTrue(p.message.hasPrefix("TOML syntax: "), p.message)
        XCTAssertFalse(r.isValid)

        let unterminated = ConfigFile.parse("room = \"A\"\n\n[display]\nmode = \"1920x1080\n")
        XCTAssertEqual(unterminated.problems.map(\.line), [4], "\(unterminated.problems)")
        let twice = ConfigFile.parse("room = \"A\"\nroom = \"B\"\n")
        XCTAssertEqual(twice.problems.map(\.line), [2], "\(twice.problems)")
    }
}
