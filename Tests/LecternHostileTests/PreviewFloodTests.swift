import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternTestSupport
import Synchronization
import XCTest

/// 60 viewers asking for full-size previews of an image-heavy deck at once (issue 25
/// finding 3, §13), over TLS as shipped: the previews come from a fixed pool within a
/// byte budget counted before they are made (the rest are told `slowDown`), so the
/// service's memory and threads stay bounded, and the floor holder's page turns stay fast
/// and its connection is kept.
final class PreviewFloodTests: XCTestCase {
    /// Threads of this process whose name starts with `prefix` (the service runs in it).
    static func threads(named prefix: String) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { ((try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8)) ?? "").hasPrefix(prefix) }.count
    }

    static func allThreads() -> Int { ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).count }

    func testSixtyViewersAskingForFullSizePreviewsDontExhaustTheService() throws {
        let h = try ServiceHarness(floor: .open) { c in
            c.tls = true
            c.audience = .open
            c.audienceNewPerAddress = 100
            c.maxConnectionsPerAddress = 2048
        }
        let fp = h.service.tlsIdentity!.fingerprint
        let connect = { try LecternConnection(host: "127.0.0.1", port: h.port, tls: .pinned(fp)) }
        let ana = try connect()
        try ana.register(name: "Ana", role: .presenter, passcode: ServiceHarness.presenterPass)
        _ = try ana.requestFloor()
        let deck = try ana.upload(path: try Fixtures.photoPagesDeck(6, in: h.dir)).content
        try ana.present(deck, page: 1)
        _ = try ana.request(.audienceSet(.unlock))   // viewers may ask for any page of the deck
        let viewers = try (0..<60).map { _ in
            let v = try connect()
            try v.register(name: "", role: .viewer, key: [UInt8](repeating: 0, count: 32))
            return v
        }
        // The floor holder's page turns before the flood.
        func turn(_ page: UInt32) throws -> Double {
            let t0 = Date()
            try ana.present(deck, page: page)
            _ = try ana.waitForState(timeout: 20) { $0.screen.page == Int(page) }
            return Date().timeIntervalSince(t0)
        }
        var quiet: [Double] = []
        for p in [2, 1, 2, 1] as [UInt32] { quiet.append(try turn(p)) }

        let rssBefore = Footprint.residentBytes()
        let threadsBefore = Self.allThreads()
        // Six attacker threads drive ten viewers each, every viewer with its 2 full-size
        // previews in flight (120 at once), of every page, over and over.
        let stop = AttackFlag()
        let counts = AttackCounts()
        let group = DispatchGroup()
        for t in 0..<6 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                var round = 0
                while !stop.value {
                    var asked: [(LecternConnection, UInt16)] = []
                    for k in 0..<10 {
                        let v = viewers[t * 10 + k]
                        for j in 0..<2 {
                            let page = UInt32(1 + (t + k + j + round) % 6)
                            asked.append((v, v.send(.pagePreview(PagePreviewRequest(content: deck, page: page, maxWidth: 0, maxHeight: 0)))))
                        }
                    }
                    var waited = false
                    for (v, tag) in asked {
                        do {
                            _ = try v.image(replyingTo: tag)
                            counts.add(made: 1)
                        } catch LecternConnection.ClientError.server(let e) where e.code == .slowDown || e.code == .busy {
                            counts.add(refused: 1)
                            waited = true
                        } catch {
                            counts.add(failed: 1)
                        }
                    }
                    if waited { Thread.sleep(forTimeInterval: 0.1) }   // the attacker's pace after being told to wait
                    round += 1
                }
            }
        }
        var turns: [Double] = [], peakRSS = rssBefore, peakThreads = threadsBefore, peakPreviewThreads = 0
        let until = Date().addingTimeInterval(12)
        var page: UInt32 = 3
        while Date() < until {
            turns.append(try turn(page))
            page = page == 3 ? 4 : 3
            peakRSS = max(peakRSS, Footprint.residentBytes())
            peakThreads = max(peakThreads, Self.allThreads())
            peakPreviewThreads = max(peakPreviewThreads, Self.threads(named: "lectern.preview"))
        }
        stop.set()
        group.wait()
        let c = counts.value
        turns.sort()
        let p50 = turns[turns.count / 2], p99 = turns[min(turns.count - 1, turns.count * 99 / 100)]
        print(
            "preview flood (60 viewers, full-size, image-heavy): \(c.made) made, \(c.refused) told to wait, \(c.failed) failed; "
                + "RSS +\((peakRSS - rssBefore) >> 20) MiB, threads +\(peakThreads - threadsBefore) (preview threads \(peakPreviewThreads)); "
                + "floor holder's page turn p50 \(Int(p50 * 1000)) ms p99 \(Int(p99 * 1000)) ms (quiet: \(quiet.map { Int($0 * 1000) }) ms)")
        XCTAssertGreaterThan(c.made, 0, "previews are still made")
        XCTAssertEqual(c.failed, 0, "no viewer lost its connection or got another error")
        XCTAssertLessThanOrEqual(peakPreviewThreads, 2, "a fixed pool, not a thread per preview")
        XCTAssertLessThan(peakThreads - threadsBefore, 30, "threads bounded")
        XCTAssertLessThan(peakRSS - rssBefore, 300 << 20, "resident memory grew by \((peakRSS - rssBefore) >> 20) MiB")
        XCTAssertLessThan(p50, 1.0, "the floor holder's page turn stays quick")
        XCTAssertLessThan(p99, 5.0)
        XCTAssertEqual(try ana.state().screen.content?.id, deck, "the floor holder is still connected and answered")
        XCTAssertTrue(viewers.allSatisfy { (try? $0.state()) != nil }, "every viewer is still connected")
    }
}

/// A flag and counters the attacker threads share.
final class AttackFlag: Sendable {
    private let box = Mutex(false)
    var value: Bool { box.withLock { $0 } }
    func set() { box.withLock { $0 = true } }
}

final class AttackCounts: Sendable {
    struct Counts: Sendable { var made = 0, refused = 0, failed = 0 }
    private let box = Mutex(Counts())
    var value: Counts { box.withLock { $0 } }
    func add(made: Int = 0, refused: Int = 0, failed: Int = 0) {
        box.withLock {
            $0.made += made; $0.refused += refused; $0.failed += failed
        }
    }
}
