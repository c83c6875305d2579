import Foundation
import Synchronization
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol
import LecternTestSupport

/// Issue 29's bench (`LECTERN_BENCH_ONLY=office`): upload → first slide on the wall for a
/// 30-slide `.pptx` with pictures, through a real release `lecternd` with its warm converter
/// and with a cold one (`[convert] warm = false`), against what a person would do by hand:
/// `soffice --headless --convert-to pdf` of the same file run cold as a process, plus
/// `pdftoppm` of its first page at the output's size. Each round uploads a deck of its own
/// (its titles differ), so every round converts. Also the peak memory of the service and of
/// the converter's sandbox (every process in it) while converting.
func runOfficeBenchmarks(rounds: Int) throws {
    let dir = Fixtures.tempDir("officebench")
    let slides = 30
    var decks: [String] = []
    for r in 0..<(rounds * 2 + 1) {
        let deck = dir + "/deck-\(r).pptx"
        try OfficeDocuments.pptx(deck, slides: slides, pictureSize: 1024, title: "Round \(r) slide")
        decks.append(deck)
    }
    let size = (try FileManager.default.attributesOfItem(atPath: decks[0])[.size] as? Int) ?? 0
    print("office: upload to first slide on the wall, a \(slides)-slide .pptx with a 1024x768 JPEG on each slide (\(size / 1000) kB), \(rounds) rounds:")

    // The reference: LibreOffice cold as a process, then pdftoppm of page 1 at 1920x1080;
    // also with the one export option lecternd sets (pictures as they are, §30.7), to
    // show what of the gain is that option's.
    var reference: [Double] = [], referenceAsIs: [Double] = []
    for r in 0..<rounds {
        for asIs in [false, true] {
            let out = dir + "/reference-\(r)-\(asIs)"
            let t0 = MonotonicClock.now()
            let pdf = try LibreOfficeReference.convert(decks[rounds * 2 - r], outDir: out, picturesAsTheyAre: asIs)
            _ = try Fixtures.pdftoppm(pdf, page: 1, width: 1920, height: 1080)
            if asIs { referenceAsIs.append(MonotonicClock.now() - t0) } else { reference.append(MonotonicClock.now() - t0) }
        }
    }

    var warm: [Double] = [], cold: [Double] = [], whole: [Double] = []
    var peaks = (service: 0, converter: 0)
    for (label, isWarm) in [("warm", true), ("cold", false)] {
        let daemon = try OfficeBenchDaemon(dir: dir + "/\(label)", warm: isWarm)
        defer { daemon.stop() }
        let c = try daemon.connect()
        // One conversion first: the warm converter is then running and waiting, as in a
        // room where a deck was shown before (the first of a meeting warms while it uploads).
        _ = try c.upload(path: decks[isWarm ? 0 : rounds * 2])
        for r in 0..<rounds {
            _ = Fixtures.wait(seconds: isWarm ? 12 : 2)   // a presenter's pause: the next converter warms up in it
            let deck = decks[1 + r + (isWarm ? 0 : rounds)]
            let sampler = MemorySampler(service: daemon.pid, sandboxes: daemon.dir + "/data/convert")
            let t0 = MonotonicClock.now()
            // As `lectern present deck.pptx` does: up once its first page is (§30.8).
            let stored = try c.upload(path: deck, firstPage: true)
            try c.present(stored.content, page: 1)
            let t = MonotonicClock.now() - t0
            // Then the whole deck: the presenter's page count reaches every slide.
            _ = try c.waitForState(timeout: 120) { $0.screen.content?.id == stored.content && $0.screen.pageCount == UInt32(slides) }
            let all = MonotonicClock.now() - t0
            let peak = sampler.stop()
            peaks = (max(peaks.service, peak.service), max(peaks.converter, peak.converter))
            if isWarm {
                warm.append(t)
                whole.append(all)
            } else {
                cold.append(t)
            }
        }
    }
    func line(_ name: String, _ xs: [Double]) -> String {
        String(format: "  %@ p50 %.2f s  p99 %.2f s", name, percentile(xs, 0.5), percentile(xs, 0.99))
    }
    print(line("lectern, warm converter  ", warm))
    print(line("lectern, cold converter  ", cold))
    print(line("lectern, warm, every slide ready", whole))
    print(line("soffice --convert-to pdf + pdftoppm page 1 (cold process)", reference))
    print(line("the same, pictures as they are (ReduceImageResolution off)", referenceAsIs))
    print(String(format: "  ratio warm/reference = %.2f (goal <= 0.5), cold/reference = %.2f", median(warm) / median(reference), median(cold) / median(reference)))
    print(String(format: "  against the reference with pictures as they are: warm %.2f, cold %.2f", median(warm) / median(referenceAsIs), median(cold) / median(referenceAsIs)))
    print("  peak resident memory while converting: service \(peaks.service / 1024) MiB, converter sandbox (every process in it) \(peaks.converter / 1024) MiB")
}

/// A release lecternd on the virtual display at 1920x1080, an open room, TLS as shipped.
final class OfficeBenchDaemon {
    let dir: String
    let process: RunningProcess
    let port: Int
    var pid: Int32 { process.process.processIdentifier }

    init(dir: String, warm: Bool) throws {
        self.dir = dir
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try """
        room = "Bench Room"
        port = 7420
        passcode = "bench-office-pass"
        floor = "open"
        data_dir = "\(dir)/data"
        [convert]
        warm = \(warm)
        [display]
        output = "virtual"
        mode = "1920x1080@60"
        """.write(toFile: dir + "/lectern.toml", atomically: true, encoding: .utf8)
        chmod(dir + "/lectern.toml", 0o600)
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        let lecternd = (exe as NSString).deletingLastPathComponent + "/lecternd"
        process = try RunningProcess(lecternd, ["--config", dir + "/lectern.toml", "--host", "127.0.0.1", "--port", "0"])
        let out = try process.waitForOutput { $0.contains("listening on port ") }
        port = Int(out.components(separatedBy: "listening on port ").last?.prefix { $0.isNumber } ?? "") ?? 0
    }

    func connect() throws -> LecternConnection {
        let c = try LecternConnection(host: "127.0.0.1", port: port, timeout: 120, tls: ClientTLS { _ in true })
        try c.register(name: "bench", role: .presenter, passcode: "bench-office-pass")
        _ = try c.requestFloor()
        return c
    }

    func stop() {
        process.kill(SIGTERM)
        _ = process.waitForExit()
    }
}

/// Samples every 50 ms, until stopped, the resident memory of the service and of the
/// processes whose command line names `sandboxes` (bubblewrap) with their descendants.
final class MemorySampler: Sendable {
    private let state = Mutex<(running: Bool, service: Int, converter: Int)>((true, 0, 0))
    private let done = DispatchSemaphore(value: 0)

    init(service: Int32, sandboxes: String) {
        Thread.detachNewThread { [self] in
            while state.withLock({ $0.running }) {
                let s = Self.rssKB(service)
                let c = ProcessTree.tree(of: ProcessTree.pids(naming: sandboxes)).reduce(0) { $0 + Self.rssKB($1) }
                state.withLock { $0 = ($0.running, max($0.service, s), max($0.converter, c)) }
                Thread.sleep(forTimeInterval: 0.05)
            }
            done.signal()
        }
    }

    func stop() -> (service: Int, converter: Int) {
        state.withLock { $0.running = false }
        done.wait()
        return state.withLock { ($0.service, $0.converter) }
    }

    static func rssKB(_ pid: Int32) -> Int {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = s.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
