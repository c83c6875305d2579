import Foundation
import LecternModel
import LecternPipeline
import LecternRender
import LecternService
import LecternTestSupport
import XCTest

/// The real binaries: lecternd on the virtual display with a config file, and the lectern
/// CLI commands of contract.md against it.
final class CLITests: XCTestCase {
    final class Daemon {
        let dir: String
        let process: RunningProcess
        let port: Int

        /// A second daemon on the data of `other` (stopped first): a restart.
        convenience init(reusing other: Daemon) throws { try self.init(dir: other.dir) }

        init(floor: String = "open", extra: String = "", dir: String = Fixtures.tempDir("cli-daemon")) throws {
            self.dir = dir
            let config = """
                room = "CLI Room"
                port = 7420
                http_port = 0
                passcode = "cli-presenter"
                moderator_passcode = "cli-moderator"
                floor = "\(floor)"
                data_dir = "\(dir)/data"
                \(extra)
                [display]
                output = "virtual"
                mode = "1280x720@60"
                """
            try config.write(toFile: dir + "/lectern.toml", atomically: true, encoding: .utf8)
            chmod(dir + "/lectern.toml", 0o600)
            process = try RunningProcess(try Fixtures.binary("lecternd"), ["--config", dir + "/lectern.toml", "--host", "127.0.0.1", "--port", "0"])
            let out = try process.waitForOutput { $0.contains("listening on port ") }
            let line = out.components(separatedBy: "listening on port ").last ?? ""
            port = Int(line.prefix { $0.isNumber }) ?? 0
        }

        func lectern(_ args: [String], name: String = "cli-tester", moderator: Bool = false) throws -> (out: String, err: String, status: Int32) {
            var env = [
                "LECTERN_PASSCODE=cli-presenter", "LECTERN_MODERATOR_PASSCODE=cli-moderator",
                "LECTERN_SESSION_FILE=\(dir)/session-\(name)",
                // This daemon's certificate, pinned in a file of its own (TLS, §25.5).
                "LECTERN_KNOWN_ROOMS=\(dir)/known-rooms",
            ]
            env.append("PATH=/usr/bin:/bin")
            let r = try Fixtures.run(
                "env",
                env + [try Fixtures.binary("lectern")] + args
                    + ["--port", "\(port)", "--name", name] + (moderator ? ["--moderator"] : []))
            return (String(decoding: r.out, as: UTF8.self), r.err, r.status)
        }

        /// `lectern` with exactly `args` (no connection options added), without the passcodes
        /// in the environment.
        func lecternExactly(_ args: [String], session: String = "exact") throws -> (out: String, err: String, status: Int32) {
            let env = [
                "-u", "LECTERN_PASSCODE", "-u", "LECTERN_MODERATOR_PASSCODE", "LECTERN_SESSION_FILE=\(dir)/session-\(session)", "LECTERN_KNOWN_ROOMS=\(dir)/known-rooms",
                "PATH=/usr/bin:/bin",
            ]
            let r = try Fixtures.run("env", env + [try Fixtures.binary("lectern")] + args)
            return (String(decoding: r.out, as: UTF8.self), r.err, r.status)
        }
    }

    /// Connection options before the command (as with `ssh`, `docker -H`) or after it, or
    /// some of each: the same connection.
    func testConnectionOptionsBeforeOrAfterTheCommand() throws {
        let d = try Daemon()
        try "cli-presenter\n".write(toFile: d.dir + "/p", atomically: true, encoding: .utf8)
        try "cli-moderator\n".write(toFile: d.dir + "/m", atomically: true, encoding: .utf8)
        let conn = ["--host", "127.0.0.1", "--port", "\(d.port)", "--name", "early-bird", "--passcode-file", d.dir + "/p"]
        for args in [conn + ["status"], ["status"] + conn, ["--host", "127.0.0.1", "--port", "\(d.port)", "status", "--name", "early-bird", "--passcode-file", d.dir + "/p"]] {
            let r = try d.lecternExactly(args)
            XCTAssertEqual(r.status, 0, "\(args): \(r.err)")
            XCTAssertTrue(r.out.contains("room: CLI Room"), r.out)
            XCTAssertTrue(r.out.contains("early-bird [presenter]"), r.out)
        }
        let modArgs = ["--port", "\(d.port)", "--name", "early-mod", "--moderator", "--moderator-passcode-file", d.dir + "/m"]
        let m = try d.lecternExactly(modArgs + ["status", "--json"], session: "mod")
        XCTAssertEqual(m.status, 0, m.err)
        XCTAssertTrue(m.out.contains("\"role\":\"moderator\""), m.out)
        // A wrong port before the command is used, not ignored.
        let wrong = try d.lecternExactly(["--port", "1", "--passcode-file", d.dir + "/p", "status"])
        XCTAssertEqual(wrong.status, 1, wrong.err)
        XCTAssertTrue(wrong.err.contains("127.0.0.1:1"), wrong.err)
    }

    /// In an open room, `present` takes the floor first (the lines `make run` prints work
    /// as printed); navigation never takes it. In a moderated room, presenting without the
    /// floor stays the server's error.
    func testPresentTakesTheFloorInAnOpenRoomOnly() throws {
        let d = try Daemon(floor: "open")
        let pdf = try Fixtures.numberedDeck(count: 3, in: d.dir)
        let a = try d.lectern(["present", pdf], name: "alice")
        XCTAssertEqual(a.status, 0, a.err)
        var state = try d.lectern(["status"], name: "alice").out
        XCTAssertTrue(state.contains("holder: alice"), state)
        XCTAssertTrue(state.contains("page 1/3"), state)
        // Someone else's next doesn't take the floor from alice (it would clear her slide).
        let next = try d.lectern(["next"], name: "bob")
        XCTAssertEqual(next.status, 12, next.err)
        XCTAssertTrue(try d.lectern(["status"], name: "alice").out.contains("holder: alice"))
        // bob presenting takes it over: the newer request wins in an open room.
        XCTAssertEqual(try d.lectern(["present", pdf, "--page", "2"], name: "bob").status, 0)
        state = try d.lectern(["status"], name: "bob").out
        XCTAssertTrue(state.contains("holder: bob"), state)
        XCTAssertTrue(state.contains("page 2/3"), state)
        let shot = d.dir + "/shot.png"
        XCTAssertEqual(try d.lectern(["screenshot", shot], name: "bob").status, 0)
        let expected = try Compositor.renderPage(PDFDocument(path: pdf), page: 2, settings: .init(width: 1280, height: 720))
        XCTAssertEqual(PixelCompare.differingPixels(try PNG.read(path: shot), expected), 0, "pixels differ")
        // play takes the floor the same way.
        let clip = try Fixtures.clip(in: d.dir, seconds: 1)
        let play = try d.lectern(["play", clip, "--loop"], name: "carol")
        XCTAssertEqual(play.status, 0, play.err)
        let json = try d.lectern(["status", "--json"], name: "carol").out
        XCTAssertTrue(json.contains("\"kind\":\"clip\""), json)
        XCTAssertTrue(try d.lectern(["status"], name: "carol").out.contains("holder: carol"))

        let moderated = try Daemon(floor: "moderated")
        let refused = try moderated.lectern(["present", pdf], name: "carol")
        XCTAssertEqual(refused.status, 12, refused.err)
        XCTAssertTrue(refused.err.contains("floor"), refused.err)
        XCTAssertEqual(try moderated.lectern(["play", clip], name: "carol").status, 12)
        XCTAssertTrue(try moderated.lectern(["status"], name: "carol").out.contains("holder: nobody"))
    }

    /// Human output ends with a newline; exit codes as README promises: 1 for a problem on
    /// this side (arguments, files), 10 + the server's area otherwise.
    func testOutputEndsWithANewlineAndExitCodesAreAsPromised() throws {
        let d = try Daemon()
        let status = try d.lectern(["status"])
        XCTAssertEqual(status.status, 0, status.err)
        XCTAssertTrue(status.out.hasSuffix("\n"), status.out.debugDescription)
        XCTAssertTrue(try d.lectern(["status", "--json"]).out.hasSuffix("}\n"))
        let request = try d.lectern(["floor", "request"])
        XCTAssertEqual(request.out, "you have the floor\n")
        XCTAssertTrue(try d.lectern(["upload", try Fixtures.numberedDeck(count: 1, in: d.dir)]).out.hasSuffix("\n"))

        XCTAssertEqual(try d.lectern(["goto"]).status, 1, "a missing argument")
        XCTAssertEqual(try d.lectern(["status", "--no-such-option"]).status, 1, "an unknown option")
        XCTAssertEqual(try d.lectern(["present", d.dir + "/missing.pdf"]).status, 1, "a missing file")
        XCTAssertEqual(try d.lectern(["floor", "dance"]).status, 1, "an unknown floor action")
        let help = try d.lecternExactly(["--help"])
        XCTAssertEqual(help.status, 0, help.err)
        XCTAssertTrue(help.out.contains("--host"), help.out)
        XCTAssertEqual(try d.lectern(["goto", "9"]).status, 13, "the server's content area")
    }

    func testPresentFromTheCommandLine() throws {
        let d = try Daemon()
        let pdf = try Fixtures.numberedDeck(count: 3, in: d.dir)
        let up = try d.lectern(["upload", pdf])
        XCTAssertEqual(up.status, 0, up.err)
        let id = up.out.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(id.count, 64)
        XCTAssertEqual(try d.lectern(["floor", "request"]).status, 0)
        // The next invocation is the same device (its resume token), still holding the floor.
        let p = try d.lectern(["present", pdf])
        XCTAssertEqual(p.status, 0, p.err)
        XCTAssertEqual(try d.lectern(["next"]).status, 0)
        let shot = d.dir + "/shot.png"
        XCTAssertEqual(try d.lectern(["screenshot", shot]).status, 0)
        let expected = try Compositor.renderPage(PDFDocument(path: pdf), page: 2, settings: .init(width: 1280, height: 720))
        XCTAssertEqual(PixelCompare.differingPixels(try PNG.read(path: shot), expected), 0, "pixels differ")
        let smallShot = d.dir + "/small.png"
        XCTAssertEqual(try d.lectern(["screenshot", smallShot, "--width", "320"]).status, 0)
        let scaled = try PNG.read(path: smallShot)
        XCTAssertEqual([scaled.width, scaled.height], [320, 180])
        XCTAssertEqual(PixelCompare.differingPixels(scaled, try PNG.read(path: shot).scaled(width: 320, height: 180)), 0)

        // The next slide, small, without showing it.
        let next = d.dir + "/next.png"
        let pv = try d.lectern(["preview", id, next, "--page", "3", "--width", "320"])
        XCTAssertEqual(pv.status, 0, pv.err)
        let small = try Compositor.renderPage(PDFDocument(path: pdf), page: 3, settings: .init(width: 320, height: 180))
        XCTAssertEqual(PixelCompare.differingPixels(try PNG.read(path: next), small), 0, "preview pixels differ")
        let notMine = try d.lectern(["preview", id, next], name: "someone-else")
        XCTAssertEqual(notMine.status, 13, notMine.err)
        XCTAssertTrue(notMine.err.contains("uploaded it or the moderator"), notMine.err)

        let status = try d.lectern(["status", "--json"])
        XCTAssertEqual(status.status, 0)
        XCTAssertTrue(status.out.contains("\"page\":2"), status.out)
        XCTAssertTrue(try d.lectern(["status"]).out.contains("page 2/3"))

        // Errors: the server's message and a non-zero exit carrying its area.
        let bad = try d.lectern(["goto", "99"])
        XCTAssertEqual(bad.status, 13)   // 0x03xx: content and screen
        XCTAssertTrue(bad.err.contains("There's no page 99") || bad.err.contains("99"), bad.err)
        let other = try d.lectern(["next"], name: "someone-else")
        XCTAssertEqual(other.status, 12)   // 0x02xx: the floor
        XCTAssertTrue(other.err.contains("floor"), other.err)
    }

    func testWrongPasscodeAndMissingPasscode() throws {
        let d = try Daemon()
        let r = try Fixtures.run("env", ["LECTERN_PASSCODE=nope-nope", try Fixtures.binary("lectern"), "status", "--port", "\(d.port)"])
        XCTAssertEqual(r.status, 11)
        XCTAssertTrue(r.err.contains("Wrong passcode"), r.err)
        let r2 = try Fixtures.run("env", ["-u", "LECTERN_PASSCODE", try Fixtures.binary("lectern"), "status", "--port", "\(d.port)"])
        XCTAssertEqual(r2.status, 1)
        XCTAssertTrue(r2.err.contains("LECTERN_PASSCODE"), r2.err)
    }

    func testHashPasscodeIsAcceptedByTheConfig() throws {
        let r = try Fixtures.run(try Fixtures.binary("lectern"), ["hash-passcode"], stdin: Data("a-long-passcode\n".utf8))
        XCTAssertEqual(r.status, 0, r.err)
        let hash = String(decoding: r.out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(hash.hasPrefix("pbkdf2-sha256$"), hash)
        XCTAssertFalse(hash.contains("a-long-passcode"))
        let d = try Daemon(extra: "")
        _ = d
        // A daemon configured with the hash lets the plain passcode in.
        let dir = Fixtures.tempDir("hash")
        try """
        port = 7420
        http_port = 0
        passcode = "\(hash)"
        floor = "open"
        data_dir = "\(dir)/data"
        [display]
        output = "virtual"
        """.write(toFile: dir + "/l.toml", atomically: true, encoding: .utf8)
        chmod(dir + "/l.toml", 0o600)
        let p = try RunningProcess(try Fixtures.binary("lecternd"), ["--config", dir + "/l.toml", "--host", "127.0.0.1", "--port", "0"])
        let out = try p.waitForOutput { $0.contains("listening on port ") }
        let port = Int((out.components(separatedBy: "listening on port ").last ?? "").prefix { $0.isNumber }) ?? 0
        let s = try Fixtures.run(
            "env",
            [
                "LECTERN_PASSCODE=a-long-passcode", "LECTERN_SESSION_FILE=\(dir)/s",
                try Fixtures.binary("lectern"), "status", "--port", "\(port)",
            ])
        XCTAssertEqual(s.status, 0, s.err)
    }

    func testAnInvalidConfigStopsTheServiceWithItsProblems() throws {
        let dir = Fixtures.tempDir("badconf")
        try "port = \"seventy\"\npasscod = \"x\"\n".write(toFile: dir + "/l.toml", atomically: true, encoding: .utf8)
        let r = try Fixtures.run(try Fixtures.binary("lecternd"), ["--config", dir + "/l.toml", "--check-config"])
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.err.contains("line 1"), r.err)
        XCTAssertTrue(r.err.contains("line 2"), r.err)
        let start = try Fixtures.run(try Fixtures.binary("lecternd"), ["--config", dir + "/l.toml"])
        XCTAssertNotEqual(start.status, 0)
        XCTAssertTrue(start.err.contains("passcod"), start.err)
    }
}
