import Foundation
import Glibc
import LecternClient
import LecternModel
import LecternSystem
import LecternPipeline
import LecternProtocol
import LecternRender
import LecternService
import LecternTestSupport
import XCTest

/// The real lecternd as the appliance runs it: config reload on SIGHUP, kill -9 and
/// restart on the same page with every upload intact, systemd's notify socket.
final class ApplianceServiceTests: XCTestCase {
    struct Setup {
        let dir = Fixtures.tempDir("appliance")
        var configPath: String { dir + "/lectern.toml" }
        func writeConfig(passcode: String, room: String = "Appliance Room", port: Int = 0, extra: String = "") throws {
            try """
            room = "\(room)"
            port = 7420
            http_port = 0
            passcode = "\(passcode)"
            moderator_passcode = "appliance-moderator"
            floor = "open"
            data_dir = "\(dir)/data"
            grace_period = 300
            \(extra)
            [display]
            output = "virtual"
            mode = "1280x720@60"
            """.write(toFile: configPath, atomically: true, encoding: .utf8)
            chmod(configPath, 0o600)
        }

        func start(port: Int = 0, environment: [String: String]? = nil) throws -> (RunningProcess, Int) {
            let p = try RunningProcess(
                try Fixtures.binary("lecternd"),
                ["--config", configPath, "--host", "127.0.0.1", "--port", "\(port)"], environment: environment)
            let out = try p.waitForOutput { $0.contains("listening on port ") }
            let bound = Int((out.components(separatedBy: "listening on port ").last ?? "").prefix { $0.isNumber }) ?? 0
            return (p, bound)
        }
    }

    func connect(_ port: Int, _ passcode: String, name: String = "A", token: ResumeToken? = nil) throws -> LecternConnection {
        // lecternd on its defaults: TLS, its self-signed certificate taken as it is.
        let c = try LecternConnection(host: "127.0.0.1", port: port, tls: ClientTLS { _ in true })
        try c.register(name: name, role: .presenter, passcode: passcode, resumeToken: token)
        return c
    }

    func testSIGHUPAppliesAValidFileAndKeepsTheOldOneForAnInvalidFile() throws {
        let s = Setup()
        try s.writeConfig(passcode: "first-passcode")
        let (p, port) = try s.start()
        _ = try connect(port, "first-passcode")

        try s.writeConfig(passcode: "second-passcode", room: "Renamed Room")
        p.kill(SIGHUP)
        _ = try p.waitForOutput { $0.contains("config reloaded") }
        let fresh = try connect(port, "second-passcode")
        XCTAssertEqual(fresh.hello.room, "Renamed Room")
        XCTAssertServerError(.wrongPasscode, try connect(port, "first-passcode"))

        try "passcode = 12\nflor = \"open\"\n".write(toFile: s.configPath, atomically: true, encoding: .utf8)
        p.kill(SIGHUP)
        let log = try p.waitForOutput { $0.contains("reload refused") }
        XCTAssertTrue(log.contains("line 1"), log)
        XCTAssertTrue(log.contains("line 2"), log)
        _ = try connect(port, "second-passcode")   // the old config still in force
        XCTAssertTrue(p.process.isRunning)
    }

    func testKill9MidPresentationAndMidUploadThenRestartOnTheSamePage() throws {
        let s = Setup()
        try s.writeConfig(passcode: "restart-passcode")
        var (p, port) = try s.start()
        let a = try connect(port, "restart-passcode")
        _ = try a.requestFloor()
        let deck = try Fixtures.numberedDeck(count: 5, in: s.dir)
        let stored = try a.upload(path: deck)
        try a.present(stored.content, page: 3)
        try a.control(.blank(white: false))
        try a.control(.unblank)
        let token = try XCTUnwrap(a.registration?.resumeToken)

        // Half of a second upload: 2 chunks of 1 MiB, confirmed by the service's progress
        // message (every 4 MiB, so send 4 and wait).
        var big = try Data(contentsOf: URL(fileURLWithPath: deck))
        while big.count < 6 << 20 { big.append(contentsOf: Array(("%" + String(repeating: "x", count: 98) + "\n").utf8)) }
        let bigPath = s.dir + "/big.pdf"
        try big.write(to: URL(fileURLWithPath: bigPath))
        let bigID = ContentHasher.id(of: [UInt8](big))
        let beginTag = a.send(.uploadBegin(UploadBegin(content: bigID, size: UInt64(big.count), kind: nil, proof: nil, name: "big.pdf")))
        _ = try a.reply(tag: beginTag)
        for i in 0..<4 {
            a.send(.uploadChunk(UploadChunk(content: bigID, offset: UInt64(i << 20), data: [UInt8](big[(i << 20)..<((i + 1) << 20)]))))
        }
        // Progress comes every 1/16 of the file (docs/protocol.md §12.1): read it up to 4 MiB.
        var got: UInt64 = 0
        while got < 4 << 20 {
            guard case .uploadProgress(_, let stored) = try a.reply(tag: beginTag), stored > got else { return XCTFail("no progress") }
            got = stored
        }
        XCTAssertEqual(got, 4 << 20)
        // The state is saved right after each change, off the event loop (a page turn does
        // not wait for the disk): poll the file until it has the unblanked page 3.
        let statePath = s.dir + "/data/state.json"
        var saved = ""
        try eventually("state.json with the unblanked page 3: \(saved)", timeout: 10) {
            saved = (try? String(contentsOfFile: statePath, encoding: .utf8)) ?? ""
            return saved.contains("\"page\":3") && saved.contains("\"blank\":\"none\"") && saved.contains("resumeToken")
        }
        XCTAssertTrue(saved.contains("\"page\":3"), saved)

        p.kill(SIGKILL)
        XCTAssertEqual(p.waitForExit(), SIGKILL)
        let t0 = MonotonicClock.now()
        (p, port) = try s.start(port: port)
        let b = try connect(port, "restart-passcode", token: token)
        let shot = try PNG.decode(b.screenshot())
        let restartSeconds = MonotonicClock.now() - t0
        let expected = try Compositor.renderPage(PDFDocument(path: deck), page: 3, settings: .init(width: 1280, height: 720))
        XCTAssertEqual(PixelCompare.differingPixels(shot, expected), 0, "not the same page after the restart")
        XCTAssertTrue(b.registration?.floorRestored == true, "the holder did not get the floor back")
        try b.control(.next)   // and drives on
        XCTAssertEqual(try b.state().screen.page, 4)
        print("restart to same page: \(String(format: "%.2f", restartSeconds)) s")

        // The completed upload is intact, byte for byte.
        let storedPath = s.dir + "/data/content/" + stored.content.hex
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: storedPath)), try Data(contentsOf: URL(fileURLWithPath: deck)))
        // The partial one resumes from what was stored.
        var offsets: [UInt64] = []
        let done = try b.upload(path: bigPath) { sent, _ in offsets.append(sent) }
        XCTAssertEqual(offsets.first, 4 << 20)
        XCTAssertEqual(done.content, bigID)
    }

    func testReadyAfterTheFirstFrameThenWatchdogKeepAlives() throws {
        let s = Setup()
        try s.writeConfig(passcode: "notify-passcode")
        let sockPath = s.dir + "/notify.sock"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in sockPath.utf8.enumerated() { raw[i] = b }
        }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(rc, 0)
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = sockPath
        env["WATCHDOG_USEC"] = "600000"   // 0.6 s: keep-alives every 0.3 s
        env.removeValue(forKey: "WATCHDOG_PID")
        let (p, _) = try s.start(environment: env)
        var messages: [String] = []
        // Each check waits on the socket itself (no pause between checks).
        try eventually("three WATCHDOG=1 keep-alives: \(messages)", timeout: 20, interval: 0) {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 1000) > 0 {
                var buf = [UInt8](repeating: 0, count: 4096)
                let n = recv(fd, &buf, buf.count, 0)
                if n > 0 { messages.append(String(decoding: buf[0..<n], as: UTF8.self)) }
            }
            return messages.filter { $0.contains("WATCHDOG=1") }.count >= 3
        }
        XCTAssertTrue(messages.first?.contains("READY=1") == true, "\(messages)")
        XCTAssertGreaterThanOrEqual(messages.filter { $0.contains("WATCHDOG=1") }.count, 3, "\(messages)")
        XCTAssertTrue(p.process.isRunning)
    }
}
