import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternPipeline
import LecternProtocol
import LecternRender
import LecternService
import LecternTestSupport
import XCTest

/// lecternd on the virtual board: Debian's kernel under QEMU with a real KMS driver
/// (bochs-display or virtio-gpu), driven from the host with `lectern` over a forwarded
/// port, the scanout read back with QEMU's screendump. Fails loudly if QEMU can't start.
final class VirtualBoardTests: XCTestCase {
    static let passcode = "board-pass-1"

    /// One booted board running lecternd.
    final class Board {
        let dir: String
        let port: Int
        var vboard: String { Repository.path("board/vboard/vboard") }

        /// `extraConfig`: more lines for the guest's lectern.toml; `forwards`: more
        /// HOSTPORT:GUESTPORT forwards (the metrics endpoint's).
        init(
            device: String, width: Int, height: Int, lecterndArgs: [String] = [], waitForService: Bool = true, extraConfig: String = "",
            forwards: [String] = []
        ) throws {
            dir = Fixtures.tempDir("vboard-\(device)")
            port = try Fixtures.freePort()
            let config = """
                room = "Board Room"
                port = 7420
                passcode = "\(VirtualBoardTests.passcode)"
                floor = "open"
                data_dir = "\(dir)/data"
                grace_period = 120
                \(extraConfig)
                """
            try config.write(toFile: dir + "/lectern.toml", atomically: true, encoding: .utf8)
            chmod(dir + "/lectern.toml", 0o600)
            let lecternd = try Fixtures.binary("lecternd")
            // boot leaves QEMU running in the background: its output goes to a file, not to a
            // pipe we would wait on forever.
            let bootLog = dir + "/boot.out"
            let r = try Fixtures.run(
                "bash",
                [
                    "-c", "exec \"$0\" \"$@\" >\"\(bootLog)\" 2>&1 </dev/null",
                    vboard, "boot", "--run-dir", dir, "--device", device, "--xres", "\(width)", "--yres", "\(height)",
                    "--forward", "\(port):7420",
                ] + forwards.flatMap { ["--forward", $0] } + [
                    "--timeout", "180", "--",
                    lecternd, "--config", dir + "/lectern.toml", "--display", "kms",
                    "--data-dir", "/run/lectern",
                ] + lecterndArgs)
            guard r.status == 0 else {
                let out = (try? String(contentsOfFile: bootLog, encoding: .utf8)) ?? ""
                throw Fixtures.ToolError(description: "the virtual board did not boot (QEMU must start: this test never skips): \(out)")
            }
            if waitForService { try waitUntilServing() }
        }

        deinit { _ = try? Fixtures.run(vboard, ["stop", "--run-dir", dir]) }

        /// Polls until the service in the guest says hello (or its log shows it gave up).
        func waitUntilServing(timeout: Double = 120) throws {
            var exited = false
            try eventually("lecternd in the guest to answer; log: \(log)", timeout: timeout, interval: 0.25) {
                if let c = try? LecternConnection(host: "127.0.0.1", port: port, timeout: 2, tls: ClientTLS { _ in true }) { c.close(); return true }
                exited = FileManager.default.fileExists(atPath: dir + "/guest.exit")
                return exited
            }
            if exited { throw Fixtures.ToolError(description: "lecternd exited in the guest: \(log)") }
        }

        var log: String { (try? String(contentsOfFile: dir + "/guest.log", encoding: .utf8)) ?? "" }

        func screendump() throws -> Frame {
            let out = dir + "/shot-\(UUID().uuidString.prefix(6)).ppm"
            let r = try Fixtures.run(vboard, ["screendump", "--run-dir", dir, out])
            guard r.status == 0 else { throw Fixtures.ToolError(description: "screendump failed: \(r.err)") }
            return try PPM.decode(Data(contentsOf: URL(fileURLWithPath: out)))
        }

        /// Runs the `lectern` CLI against the board, as the same device every time.
        @discardableResult
        func lectern(_ args: [String]) throws -> String {
            let bin = try Fixtures.binary("lectern")
            let r = try Fixtures.run(
                "env",
                [
                    "LECTERN_PASSCODE=\(VirtualBoardTests.passcode)",
                    "LECTERN_SESSION_FILE=\(dir)/session", "LECTERN_KNOWN_ROOMS=\(dir)/known-rooms", bin,
                ] + args
                    + ["--host", "127.0.0.1", "--port", "\(port)", "--name", "board-test"])
            guard r.status == 0 else { throw Fixtures.ToolError(description: "lectern \(args.joined(separator: " ")) failed: \(r.err)") }
            return String(decoding: r.out, as: UTF8.self)
        }

        /// Polls the scanout until `check` holds (a present lands at the next flip).
        func waitForScreen(timeout: Double = 30, _ what: String, _ check: (Frame) -> Bool) throws -> Frame {
            try ScanoutPoll.wait(
                for: what, timeout: timeout, interval: 0.2, failedPNG: dir + "/failed.png", detail: "; log: \(log)", screendump: screendump, check)
        }
    }

    func deck() throws -> String {
        try Fixtures.pdf(
            [
                Fixtures.quadrantPage(width: 720, height: 540),
                PDFSketch.Page(width: 720, height: 540, background: Fixtures.green),
                Fixtures.quadrantPage(width: 720, height: 540),
            ], in: Fixtures.tempDir("boarddeck"))
    }

    func testBochsAt1920x1080IdlePresentNextBlank() throws {
        let board = try Board(device: "bochs", width: 1920, height: 1080)
        // Idle: exactly the frame the virtual display renders for the same state, with the
        // time of day the guest shows (its clock is the host's; its zone local or UTC), drawn
        // again at each poll since the minute may turn.
        // The certificate's fingerprint at the bottom (TLS on by default): the one the CLI
        // pinned on its first connection, so the wall shows what the client saw.
        try board.lectern(["status"])
        let pinned = try String(contentsOfFile: board.dir + "/known-rooms", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("127.0.0.1:\(board.port) ") }?.split(separator: " ").last.map(String.init)
        let hex = try XCTUnwrap(pinned, "the CLI pinned the board's certificate")
        let short = hex.prefix(16).uppercased().enumerated().map { $0.offset > 0 && $0.offset % 4 == 0 ? " \($0.element)" : "\($0.element)" }.joined()
        func expectedIdle(_ timeOfDay: String) -> Frame {
            var idle = IdleScreen(room: "Board Room", addresses: ["10.0.2.15"], port: 7420, url: "http://10.0.2.15:8080/")   // its own certificate: the landing page (§28)
            idle.timeOfDay = timeOfDay
            idle.fingerprint = short
            let f = Frame(width: 1920, height: 1080)
            idle.draw(into: f)
            return f
        }
        func clocks() -> Set<String> {
            var t = time_t(Date().timeIntervalSince1970)
            var local = tm(), utc = tm()
            localtime_r(&t, &local)
            gmtime_r(&t, &utc)
            return Set([local, utc].map { String(format: "%02d:%02d", $0.tm_hour, $0.tm_min) })
        }
        _ = try board.waitForScreen("the idle screen") { shown in clocks().contains { PixelCompare.differingPixels(shown, expectedIdle($0)) == 0 } }

        // Upload and present a 4:3 deck: 240-pixel bars, content exactly the pipeline's.
        let pdf = try deck()
        try board.lectern(["floor", "request"])
        try board.lectern(["present", pdf])
        let settings = Compositor.Settings(width: 1920, height: 1080)
        let page1 = try Compositor.renderPage(PDFDocument(path: pdf), page: 1, settings: settings)
        let shown = try board.waitForScreen("page 1") { PixelCompare.differingPixels($0, page1) == 0 }
        XCTAssertTrue(shown.isUniform(PixelRect(x: 0, y: 0, width: 240, height: 1080), .black))
        XCTAssertTrue(shown.isUniform(PixelRect(x: 1680, y: 0, width: 240, height: 1080), .black))
        XCTAssertEqual(shown.pixel(x: 240, y: 5), .white)

        try board.lectern(["next"])
        _ = try board.waitForScreen("page 2 (green)") { $0.pixel(x: 960, y: 540) == Fixtures.green && $0.pixel(x: 100, y: 540) == .black }

        try board.lectern(["blank", "--white"])
        _ = try board.waitForScreen("blank white") { $0.isUniform($0.bounds, .white) }
        try board.lectern(["unblank"])
        _ = try board.waitForScreen("page 2 again") { $0.pixel(x: 960, y: 540) == Fixtures.green }
    }

    func testBochsAt1280x1024PicksThePreferredModeAndLetterboxes() throws {
        let board = try Board(device: "bochs", width: 1280, height: 1024)
        XCTAssertTrue(board.log.contains("1280x1024"), board.log)
        let pdf = try deck()
        try board.lectern(["floor", "request"])
        try board.lectern(["present", pdf])
        let expected = try Compositor.renderPage(PDFDocument(path: pdf), page: 1, settings: .init(width: 1280, height: 1024))
        let shown = try board.waitForScreen("page 1 at 1280x1024") { $0.width == 1280 && PixelCompare.differingPixels($0, expected) == 0 }
        XCTAssertTrue(shown.isUniform(PixelRect(x: 0, y: 0, width: 1280, height: 32), .black))
        XCTAssertTrue(shown.isUniform(PixelRect(x: 0, y: 992, width: 1280, height: 32), .black))
        XCTAssertEqual(shown.pixel(x: 5, y: 33), .white)
    }

    func testVirtioGPUWorksToo() throws {
        let board = try Board(device: "virtio", width: 1920, height: 1080)
        let pdf = try deck()
        try board.lectern(["floor", "request"])
        try board.lectern(["present", pdf, "--page", "2"])
        _ = try board.waitForScreen("page 2 on virtio-gpu") {
            $0.pixel(x: 960, y: 540) == Fixtures.green && $0.isUniform(PixelRect(x: 0, y: 0, width: 240, height: 1080), .black)
        }
        try board.lectern(["blank", "--white"])
        _ = try board.waitForScreen("blank white on virtio-gpu") { $0.isUniform($0.bounds, .white) }
    }

    func testHotplugToAnotherModeModesetsAgainAndKeepsThePage() throws {
        let board = try Board(device: "virtio", width: 1920, height: 1080)
        let pdf = try deck()
        try board.lectern(["floor", "request"])
        try board.lectern(["present", pdf])
        _ = try board.waitForScreen("page 1 at 1920x1080") { $0.width == 1920 && $0.pixel(x: 100, y: 540) == .black && $0.pixel(x: 245, y: 5) == .white }
        // The "monitor" changes to 1280x1024: virtio-gpu tells the kernel, which sends a drm
        // change uevent; lecternd re-probes, modesets the new preferred mode and redraws.
        let r = try Fixtures.run(board.vboard, ["resize", "--run-dir", board.dir, "1280", "1024"])
        XCTAssertEqual(r.status, 0, r.err)
        let expected = try Compositor.renderPage(PDFDocument(path: pdf), page: 1, settings: .init(width: 1280, height: 1024))
        _ = try board.waitForScreen("page 1 again at 1280x1024") { PixelCompare.differingPixels($0, expected) == 0 }
        // Still serving: the page turns at the new size.
        try board.lectern(["next"])
        _ = try board.waitForScreen("page 2 at 1280x1024") { $0.width == 1280 && $0.pixel(x: 640, y: 512) == Fixtures.green }
    }

    /// Issue 16: ink is kept in page coordinates: after the monitor changes its mode
    /// (virtio-gpu resized: a hotplug uevent, a modeset) the stroke is at the same place on the
    /// page, drawn at the new size.
    func testInkKeepsItsPageCoordinatesWhenTheModeChanges() throws {
        let board = try Board(device: "virtio", width: 1920, height: 1080)
        let pdf = try deck()
        try board.lectern(["floor", "request"])
        try board.lectern(["present", pdf, "--page", "2"])   // all green: the ink stands out
        _ = try board.waitForScreen("page 2") { $0.width == 1920 && $0.pixel(x: 960, y: 540) == Fixtures.green }
        let stroke = board.dir + "/stroke.json"
        try #"{"points": [[0.1, 0.5], [0.5, 0.5], [0.9, 0.5]], "width": "thick", "color": 3}"#.write(toFile: stroke, atomically: true, encoding: .utf8)
        try board.lectern(["draw", stroke])
        let color = try XCTUnwrap(InkPalette.color(index: 3))
        /// The stroke across the middle of a page placed at (x0, y0) with size w×h, and not above it.
        func stroked(_ f: Frame, x0: Int, y0: Int, w: Int, h: Int) -> Bool {
            [0.3, 0.5, 0.7].allSatisfy { px in (-6...6).contains { dy in f.pixel(x: x0 + Int(px * Double(w)), y: y0 + h / 2 + dy) == color } }
                && f.pixel(x: x0 + w / 2, y: y0 + h / 4) == Fixtures.green
        }
        // 4:3 on 1920×1080: the page is 1440×1080 at x = 240.
        _ = try board.waitForScreen("the stroke across page 2 at 1920x1080") { $0.width == 1920 && stroked($0, x0: 240, y0: 0, w: 1440, h: 1080) }
        let r = try Fixtures.run(board.vboard, ["resize", "--run-dir", board.dir, "1280", "1024"])
        XCTAssertEqual(r.status, 0, r.err)
        // 4:3 on 1280×1024: the page is 1280×960 at y = 32.
        _ = try board.waitForScreen("the stroke at the same page coordinates at 1280x1024") { $0.width == 1280 && stroked($0, x0: 0, y0: 32, w: 1280, h: 960) }
    }

    /// Issue 15, must 7: the projector's cable is pulled (virtio-gpu's display disabled,
    /// the kernel's hotplug uevent), the state says so at once; the presenter turns the page
    /// meanwhile; the cable goes back and the current slide is on the wall without anyone acting.
    func testUnpluggingTheDisplayIsInTheStateAndReplugBringsTheSlideBack() throws {
        let board = try Board(device: "virtio", width: 1920, height: 1080)
        let pdf = try deck()
        try board.lectern(["floor", "request"])
        try board.lectern(["present", pdf])
        _ = try board.waitForScreen("page 1") { $0.pixel(x: 100, y: 540) == .black && $0.pixel(x: 245, y: 5) == .white }
        func connected(_ status: String) -> Bool {
            status.split(separator: "\n").contains { $0.hasPrefix("output: 1920x1080@") && $0.hasSuffix(" connected") }
        }
        XCTAssertTrue(connected(try board.lectern(["status"])))

        let r = try Fixtures.run(board.vboard, ["unplug", "--run-dir", board.dir])
        XCTAssertEqual(r.status, 0, r.err)
        var status = ""
        try eventually("lectern status to say the output is disconnected (last: \(status)); log: \(board.log)", timeout: 30, interval: 0.2) {
            status = try board.lectern(["status"])
            return status.contains("output: DISCONNECTED")
        }
        let json = try Snapshot.fromJSON(Array(try board.lectern(["status", "--json"]).utf8))
        XCTAssertFalse(json.output.connected)
        XCTAssertEqual(json.output.losses, 1)
        // The presenter goes on while the wall is dark: page 2, all green (the display's
        // front buffer still holds page 1, so page 2 on it means the service drew again).
        try board.lectern(["next"])

        let back = try Fixtures.run(board.vboard, ["resize", "--run-dir", board.dir, "1920", "1080"])
        XCTAssertEqual(back.status, 0, back.err)
        let expected = try Compositor.renderPage(PDFDocument(path: pdf), page: 2, settings: .init(width: 1920, height: 1080))
        _ = try board.waitForScreen("page 2 on the replugged display") { PixelCompare.differingPixels($0, expected) == 0 }
        try eventually("lectern status to say the output is back; log: \(board.log)", timeout: 30, interval: 0.2) {
            connected(try board.lectern(["status"]))
        }
        XCTAssertTrue(board.log.contains("is disconnected"), board.log)
    }

    /// Issue 26: the display pulled and plugged back while a clip plays. The clip goes on
    /// (its frames keep being taken at each refresh; presents are dropped while no display
    /// is there), comes back on the replugged display, and the watchdog's heartbeat is
    /// answered throughout (the old stage held the hotplug thread and starved the heartbeat
    /// for as long as the clip played).
    func testUnplugAndReplugDuringAClipTheClipGoesOnAndTheWatchdogHolds() throws {
        let board = try Board(device: "virtio", width: 1920, height: 1080)
        let pdf = try deck()
        let clip = try Fixtures.clip(in: Fixtures.tempDir("board-clip"), color: "red", seconds: 4)
        try board.lectern(["floor", "request"])
        try board.lectern(["present", pdf])
        _ = try board.waitForScreen("page 1") { $0.pixel(x: 100, y: 540) == .black && $0.pixel(x: 245, y: 5) == .white }
        try board.lectern(["play", "--loop", clip])
        func isRed(_ c: RGB) -> Bool { c.r > 200 && c.g < 70 && c.b < 70 }
        _ = try board.waitForScreen("the clip") { isRed($0.pixel(x: 960, y: 540)) && $0.pixel(x: 100, y: 540) == .black }
        func clipState() throws -> (playing: Bool, presented: UInt32) {
            let s = try Snapshot.fromJSON(Array(try board.lectern(["status", "--json"]).utf8))
            return (s.screen.clip?.state == .playing, s.screen.clip?.presentedFrames ?? 0)
        }
        let r = try Fixtures.run(board.vboard, ["unplug", "--run-dir", board.dir])
        XCTAssertEqual(r.status, 0, r.err)
        try eventually("lectern status to say the output is disconnected; log: \(board.log)", timeout: 30, interval: 0.2) {
            try board.lectern(["status"]).contains("output: DISCONNECTED")
        }
        // The room answers, and the clip plays on with no display.
        let before = try clipState()
        XCTAssertTrue(before.playing)
        try eventually("the clip to play on unplugged; log: \(board.log)", timeout: 20, interval: 0.5) { try clipState().presented > before.presented + 10 }
        let back = try Fixtures.run(board.vboard, ["resize", "--run-dir", board.dir, "1920", "1080"])
        XCTAssertEqual(back.status, 0, back.err)
        _ = try board.waitForScreen("the clip on the replugged display") { isRed($0.pixel(x: 960, y: 540)) && $0.pixel(x: 100, y: 540) == .black }
        let after = try clipState()
        XCTAssertTrue(after.playing, "the clip goes on")
        try eventually("the clip to play on replugged", timeout: 20, interval: 0.5) { try clipState().presented > after.presented + 10 }
        // Two heartbeats at least (every 5 s) since the cable was pulled: none failed.
        MonotonicClock.sleep(until: MonotonicClock.now() + 6)
        XCTAssertFalse(board.log.contains("heartbeat:"), "the watchdog was not fed: \(board.log)")
        try board.lectern(["stop"])
        _ = try board.waitForScreen("page 1 again") { $0.pixel(x: 100, y: 540) == .black && $0.pixel(x: 245, y: 5) == .white }
    }

    /// A PDF's own /Trans on a real KMS output: the turn shows frames of the fade (neither
    /// page, a blend of both) and then the new page exactly.
    func testAFadeFromThePDFPlaysOnTheRealOutput() throws {
        let board = try Board(device: "bochs", width: 1920, height: 1080)
        let pdf = try Fixtures.transitionDeck([Fixtures.red, Fixtures.blue], transitions: [nil, "/S /Fade /D 4"], in: Fixtures.tempDir("board-trans"))
        let settings = Compositor.Settings(width: 1920, height: 1080)
        let doc = try PDFDocument(path: pdf)
        let page1 = try Compositor.renderPage(doc, page: 1, settings: settings), page2 = try Compositor.renderPage(doc, page: 2, settings: settings)
        let a = page1.pixel(x: 960, y: 540), b = page2.pixel(x: 960, y: 540)
        try board.lectern(["floor", "request"])
        try board.lectern(["present", pdf])
        _ = try board.waitForScreen("page 1") { PixelCompare.differingPixels($0, page1) == 0 }
        try board.lectern(["next"])
        // Between the two colours on every channel, and neither of them: a frame of the fade.
        func between(_ x: UInt8, _ lo: UInt8, _ hi: UInt8) -> Bool { x >= min(lo, hi) && x <= max(lo, hi) }
        let mid = try board.waitForScreen(timeout: 20, "a frame of the fade") { f in
            let p = f.pixel(x: 960, y: 540)
            return p != a && p != b && between(p.r, a.r, b.r) && between(p.g, a.g, b.g) && between(p.b, a.b, b.b)
        }
        XCTAssertTrue(mid.isUniform(PixelRect(x: 240, y: 0, width: 1440, height: 1080), mid.pixel(x: 960, y: 540)), "a fade changes every pixel alike")
        _ = try board.waitForScreen(timeout: 30, "page 2 when the fade is over") { PixelCompare.differingPixels($0, page2) == 0 }
    }

    func testAModeTheMonitorLacksIsAnErrorListingTheOfferedModes() throws {
        let board = try Board(device: "bochs", width: 1920, height: 1080, lecterndArgs: ["--mode", "1234x567"], waitForService: false)
        let r = try Fixtures.run(board.vboard, ["wait-exit", "--run-dir", board.dir, "--timeout", "120"])
        XCTAssertNotEqual(r.status, 0)
        let log = board.log
        XCTAssertTrue(log.contains("does not offer 1234x567"), log)
        XCTAssertTrue(log.contains("1920x1080"), "the offered modes are not listed: \(log)")
    }
}
