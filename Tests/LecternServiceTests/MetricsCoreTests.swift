import LecternModel
import LecternProtocol
import XCTest

@testable import LecternService

/// The pure parts behind `/metrics`: page-turn timing, clip frame increments, the error
/// code read off an outgoing frame.
final class MetricsCoreTests: XCTestCase {
    func testAPageTurnIsTimedFromShowToShownAndOnlyPagesCount() {
        var t = PageTurnTimer()
        t.showing(op: 1, .page(content: "c", page: 2), now: 10)
        t.showing(op: 2, .idle, now: 10)
        t.showing(op: 3, .page(content: "c", page: 3), now: 11)
        XCTAssertEqual(t.shown(op: 1, failed: false, now: 10.25), 0.25)
        XCTAssertNil(t.shown(op: 1, failed: false, now: 10.5), "once")
        XCTAssertNil(t.shown(op: 2, failed: false, now: 10.5), "the idle screen is no page turn")
        XCTAssertNil(t.shown(op: 3, failed: true, now: 12), "a failed show is no page turn")
    }

    func testPendingTurnsAreBounded() {
        var t = PageTurnTimer()
        for op in 0..<1000 { t.showing(op: op, .page(content: "c", page: 1), now: 0) }
        XCTAssertNil(t.shown(op: 0, failed: false, now: 1), "the oldest was dropped")
        XCTAssertEqual(t.shown(op: 999, failed: false, now: 1), 1)
    }

    func testClipFramesCountOnlyWhatIsNew() {
        var c = ClipFrameTally()
        XCTAssertTrue(c.report(serial: 1, presented: 10, dropped: 1) == (10, 1))
        XCTAssertTrue(c.report(serial: 1, presented: 25, dropped: 1) == (15, 0))
        XCTAssertTrue(c.report(serial: 1, presented: 25, dropped: 1) == (0, 0), "the same report twice (progress, then the end)")
        XCTAssertTrue(c.report(serial: 2, presented: 5, dropped: 2) == (5, 2), "a new clip starts from zero")
    }

    func testTheErrorCodeOfAnOutgoingFrame() {
        let e = Message.error(.wrongPasscode).encode(tag: 3, deviceID: 0)
        XCTAssertEqual(ServiceMetrics.errorCode(inFrame: e), ErrorCode.wrongPasscode.rawValue)
        let f = Message.failure(replyingTo: Command.register.rawValue, .tooManyAttempts(retryAfter: 5)).encode(tag: 3, deviceID: 0)
        XCTAssertEqual(ServiceMetrics.errorCode(inFrame: f), ErrorCode.tooManyAttempts.rawValue)
        XCTAssertNil(ServiceMetrics.errorCode(inFrame: Message.pong(nonce: 1).encode(tag: 1, deviceID: 0)))
        XCTAssertNil(ServiceMetrics.errorCode(inFrame: [0x14, 0, 0]), "a short frame is no error")
    }

    func testEveryMetricHasHelpText() {
        let m = ServiceMetrics(starts: 1, startTime: 0)
        let text = String(decoding: m.exposition(reading()), as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix("# TYPE ") {
            let name = String(line.split(separator: " ")[2])
            XCTAssertNotNil(ServiceMetrics.help[name], "\(name) has no help text")
        }
    }

    func reading() -> ServiceMetrics.Reading {
        let snapshot = Snapshot(
            revision: 1, room: "R", floorMode: .open, floor: FloorSnapshot(), devices: [],
            screen: ScreenSnapshot(content: nil, page: 0, pageCount: 0, blank: .none, clip: nil))
        return ServiceMetrics.Reading(
            outputConnected: true, outputVirtual: true, mode: .fullHD, snapshot: snapshot, storageUsedBytes: 0, storageQuotaBytes: 1)
    }
}
