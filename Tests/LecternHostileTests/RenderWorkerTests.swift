import Foundation
import Glibc
import LecternClient
import LecternModel
import LecternSystem
@testable import LecternPipeline
import LecternProtocol
import LecternRender
import LecternService
import LecternTestSupport
import XCTest

/// Pages that take too much: drawn in render worker processes (`lecternd --render-worker`)
/// with a memory limit, killed past the budget and replaced. A memory bomb costs the
/// service nothing, the wall keeps its frame, the presenter is told, the watchdog is fed;
/// a killed worker is replaced; the poison page list survives a kill -9.
final class RenderWorkerTests: XCTestCase {
    /// A deck of plain pages (a coloured bar each) where the pages in `bombs` draw one
    /// RGB image of `side`² pixels: cairo needs side² × 4 bytes for it (20000: 1.6 GB),
    /// from a file of under 2 KB.
    static func memoryBombDeck(pages: Int, bombs: Set<Int>, side: Int = 20000, in dir: String, name: String = "membomb.pdf") throws -> String {
        var pdf = RawPDF()
        let image = pdf.addStream(
            "/Type /XObject /Subtype /Image /Width \(side) /Height \(side) /ColorSpace /DeviceRGB /BitsPerComponent 8",
            "0123456789abcdef")
        return try BombDeck.write(&pdf, pages: pages, bombs: bombs, draw: "q 600 0 0 450 0 0 cm /Im Do Q", xobjects: "/Im \(image) 0 R", to: dir + "/" + name)
    }

    /// A 2 KB page that needs 1.6 GB: refused with the memory error, the service grows by
    /// less than 64 MiB and the workers never hold more than their limit, the wall keeps
    /// its frame, the heartbeat goes on, and the deck's other pages show.
    func testAMemoryBombIsRefusedAndMemoryStaysBounded() throws {
        let h = try ServiceHarness(floor: .open) { $0.renderMemoryMB = 256 }
        let workers = try XCTUnwrap(h.service.workers, "the service runs render workers")
        let beats = Counter()
        h.service.startHeartbeat(interval: 0.1) { beats.add() }
        let ana = try h.presenter("Ana")
        _ = try ana.requestFloor()
        let path = try Self.memoryBombDeck(pages: 3, bombs: [2], in: h.dir)
        let deck = try ana.upload(path: path)
        try ana.present(deck.content, page: 1)
        h.service.stage.compositor.waitForPrerender()
        let page1 = try PNG.decode(ana.screenshot())

        let workerPeak = PeakOfWorkers(workers)
        var error: LecternError?
        let growth = Footprint.peakGrowth {
            error = serverError { try ana.control(.goto(page: 2)) }
        }
        workerPeak.stop()
        XCTAssertEqual(error?.code, .unreadableContent)
        XCTAssertTrue(error?.message.contains("256 MB of memory") ?? false, error?.message ?? "no error")
        XCTAssertLessThan(growth.bytes, 64 << 20, "the service grew by \(growth.bytes >> 20) MiB")
        XCTAssertLessThanOrEqual(workerPeak.bytes, 256 << 20, "a worker held \(workerPeak.bytes >> 20) MiB")
        XCTAssertEqual(PixelCompare.differingPixels(try PNG.decode(ana.screenshot()), page1), 0, "the previous frame stays")
        XCTAssertTrue(h.service.stage.compositor.isSlow(content: deck.content.hex, page: 2))

        let before = beats.value
        try eventually("heartbeats after the bomb", timeout: 5) { beats.value >= before + 3 }
        try ana.control(.goto(page: 3))
        XCTAssertEqual(PixelCompare.differingPixels(try PNG.decode(ana.screenshot()), try h.expectedFrame(pdf: path, page: 3)), 0)
    }

    /// A deck whose page 2 is a memory bomb: showing page 1 prerenders page 2 in the
    /// background worker, which hits its limit; the service doesn't grow, page 1 stays,
    /// page 2 is known poison, and page 3 (its other neighbour) shows.
    func testAMemoryBombNeighbourDoesNotHurtThePageOnScreen() throws {
        let h = try ServiceHarness(floor: .open) { $0.renderMemoryMB = 256 }
        let ana = try h.presenter("Ana")
        _ = try ana.requestFloor()
        let path = try Self.memoryBombDeck(pages: 3, bombs: [2], in: h.dir)
        let deck = try ana.upload(path: path)
        let compositor = h.service.stage.compositor
        let growth = try Footprint.peakGrowth {
            try ana.present(deck.content, page: 1)
            compositor.waitForPrerender()
        }
        XCTAssertLessThan(growth.bytes, 64 << 20, "the service grew by \(growth.bytes >> 20) MiB")
        XCTAssertTrue(compositor.isSlow(content: deck.content.hex, page: 2), "page 2's prerender hit the worker's limit")
        XCTAssertEqual(PixelCompare.differingPixels(try PNG.decode(ana.screenshot()), try h.expectedFrame(pdf: path, page: 1)), 0)
        XCTAssertEqual(serverError { try ana.control(.next) }?.code, .unreadableContent)
        try ana.control(.goto(page: 3))
        XCTAssertEqual(PixelCompare.differingPixels(try PNG.decode(ana.screenshot()), try h.expectedFrame(pdf: path, page: 3)), 0)
    }

    /// A worker killed from outside (the OOM killer, an admin) is replaced: the next page
    /// and the next preview are drawn as if nothing happened.
    func testAKilledWorkerIsReplaced() throws {
        let h = try ServiceHarness(floor: .open)
        let workers = try XCTUnwrap(h.service.workers)
        let ana = try h.presenter("Ana")
        _ = try ana.requestFloor()
        let plain = try Fixtures.numberedDeck(count: 4, in: h.dir)
        let deck = try ana.upload(path: plain)
        try ana.present(deck.content, page: 1)
        h.service.stage.compositor.waitForPrerender()
        let wall = workers.wall.processID, background = workers.background.processID
        XCTAssertGreaterThan(wall, 0)
        XCTAssertGreaterThan(background, 0)
        XCTAssertEqual(kill(wall, SIGKILL), 0)
        XCTAssertEqual(kill(background, SIGKILL), 0)

        try ana.control(.goto(page: 4))   // not prerendered: drawn by a new wall worker
        XCTAssertEqual(PixelCompare.differingPixels(try PNG.decode(ana.screenshot()), try h.expectedFrame(pdf: plain, page: 4)), 0)
        XCTAssertNotEqual(workers.wall.processID, wall)
        let preview = try PNG.decode(ana.pagePreview(deck.content, page: 2, maxWidth: 320, maxHeight: 180))
        XCTAssertEqual(
            PixelCompare.differingPixels(preview, try h.expectedFrame(pdf: plain, page: 2, width: preview.width, height: preview.height)), 0)
        XCTAssertNotEqual(workers.background.processID, background)
    }

    /// The poison page list is in the data directory (owner-only): after a kill -9 and a
    /// restart, the slow page is refused at once, not drawn again for a budget's time.
    func testTheSlowListSurvivesAKill9Restart() throws {
        let dir = Fixtures.tempDir("slow-restart")
        try """
        room = "Slow Room"
        port = 7420
        http_port = 0
        floor = "open"
        passcode = "\(ServiceHarness.presenterPass)"
        moderator_passcode = "\(ServiceHarness.moderatorPass)"
        data_dir = "\(dir)/data"
        render_budget = 0.5
        [display]
        output = "virtual"
        mode = "640x360@60"
        """.write(toFile: dir + "/lectern.toml", atomically: true, encoding: .utf8)
        chmod(dir + "/lectern.toml", 0o600)
        func start() throws -> (RunningProcess, LecternConnection) {
            let daemon = try RunningProcess(try Fixtures.binary("lecternd"), ["--config", dir + "/lectern.toml", "--host", "127.0.0.1", "--port", "0"])
            let out = try daemon.waitForOutput { $0.contains("listening on port ") }
            let port = Int((out.components(separatedBy: "listening on port ").last ?? "").prefix { $0.isNumber }) ?? 0
            let c = try LecternConnection(host: "127.0.0.1", port: port, tls: ClientTLS { _ in true })   // lecternd on its defaults: TLS
            try c.register(name: "Chair", role: .moderator, passcode: ServiceHarness.moderatorPass)
            return (daemon, c)
        }
        var (daemon, ana) = try start()
        defer { daemon.kill(SIGKILL) }
        let deck = try ana.upload(path: RenderBombTests.deck(pages: 3, bombs: [3], in: dir))
        try ana.present(deck.content, page: 1)
        let first = MonotonicClock.now()
        let firstError = serverError { try ana.control(.goto(page: 3)) }
        XCTAssertEqual(firstError?.code, .unreadableContent)
        XCTAssertTrue(firstError?.message.contains("longer than 0.5 s") ?? false, firstError?.message ?? "no error")
        XCTAssertGreaterThanOrEqual(MonotonicClock.now() - first, 0.5, "refused past the budget the first time")
        let file = dir + "/data/slow-pages"
        XCTAssertTrue(try String(contentsOfFile: file, encoding: .utf8).contains("\(deck.content.hex) 3"))
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber)?.intValue, 0o600)

        daemon.kill(SIGKILL)
        _ = daemon.waitForExit()
        (daemon, ana) = try start()
        try ana.present(deck.content, page: 1)
        let again = MonotonicClock.now()
        let e = serverError { try ana.control(.goto(page: 3)) }
        XCTAssertEqual(e?.code, .unreadableContent)
        XCTAssertLessThan(MonotonicClock.now() - again, 0.4, "refused at once after the restart")
        try ana.control(.goto(page: 2))
        XCTAssertEqual(try ana.state().screen.page, 2)
    }
}

extension RenderWorkerTests {
    /// A service killed mid-page (kill -9, the watchdog) leaves no worker behind for long:
    /// the idle one reads the closed socket and exits, the one drawing a bomb is stopped by
    /// its CPU backstop (twice the budget plus 2 s per page).
    func testWorkersDoNotOutliveAKilledService() throws {
        let dir = Fixtures.tempDir("orphans")
        try """
        room = "Orphan Room"
        port = 7420
        http_port = 0
        floor = "open"
        passcode = "\(ServiceHarness.presenterPass)"
        moderator_passcode = "\(ServiceHarness.moderatorPass)"
        data_dir = "\(dir)/data"
        render_budget = 1
        [display]
        output = "virtual"
        mode = "640x360@60"
        """.write(toFile: dir + "/lectern.toml", atomically: true, encoding: .utf8)
        chmod(dir + "/lectern.toml", 0o600)
        let daemon = try RunningProcess(try Fixtures.binary("lecternd"), ["--config", dir + "/lectern.toml", "--host", "127.0.0.1", "--port", "0"])
        defer { daemon.kill(SIGKILL) }
        let out = try daemon.waitForOutput { $0.contains("listening on port ") }
        let port = Int((out.components(separatedBy: "listening on port ").last ?? "").prefix { $0.isNumber }) ?? 0
        let chair = try LecternConnection(host: "127.0.0.1", port: port, tls: ClientTLS { _ in true })   // lecternd on its defaults: TLS
        try chair.register(name: "Chair", role: .moderator, passcode: ServiceHarness.moderatorPass)
        let deck = try chair.upload(path: RenderBombTests.deck(pages: 1, bombs: [1], in: dir))
        let service = daemon.process.processIdentifier
        let workers = Orphans.children(of: service)
        XCTAssertEqual(workers.count, 2, "the wall's and the background's worker")

        let presenting = Thread { _ = try? chair.present(deck.content) }
        presenting.start()
        try eventually("a worker is drawing the bomb", timeout: 10) { workers.contains { Orphans.cpuTicks($0) > 20 } }
        daemon.kill(SIGKILL)
        _ = daemon.waitForExit()
        try eventually("no worker outlives the service by more than its orphan watch", timeout: 8) {
            workers.allSatisfy { !Orphans.alive($0) }
        }
    }
}

/// Processes by /proc: whose parent is a pid, how much CPU they used, whether they run.
enum Orphans {
    static func stat(_ pid: pid_t) -> [Substring]? {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = s.lastIndex(of: ")") else { return nil }
        return s[s.index(after: close)...].split(separator: " ")   // state, ppid, … utime at 11, stime at 12
    }

    static func children(of parent: pid_t) -> [pid_t] {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return all.compactMap { pid_t($0) }.filter { stat($0).map { $0.count > 1 && pid_t($0[1]) == parent } ?? false }
    }

    static func cpuTicks(_ pid: pid_t) -> Int {
        guard let f = stat(pid), f.count > 12 else { return 0 }
        return (Int(f[11]) ?? 0) + (Int(f[12]) ?? 0)
    }

    /// Running or sleeping: not gone, not a zombie waiting to be reaped.
    static func alive(_ pid: pid_t) -> Bool {
        guard let f = stat(pid), let state = f.first else { return false }
        return state != "Z" && state != "X"
    }
}

/// The highest resident size either render worker had while it ran (sampled every 10 ms).
final class PeakOfWorkers: @unchecked Sendable {
    private let lock = NSLock()
    private var peak = 0
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    init(_ workers: RenderWorkers) {
        let thread = Thread { [self] in
            while lock.withLock({ running }) {
                for pid in [workers.wall.processID, workers.background.processID] where pid > 0 {
                    let rss = Self.resident(pid)
                    lock.withLock { peak = max(peak, rss) }
                }
                usleep(10_000)
            }
            done.signal()
        }
        thread.start()
    }

    func stop() {
        lock.withLock { running = false }
        done.wait()
    }

    var bytes: Int { lock.withLock { peak } }

    static func resident(_ pid: pid_t) -> Int {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8) else { return 0 }
        let fields = s.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
