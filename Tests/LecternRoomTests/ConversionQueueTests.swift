import LecternModel
import LecternProtocol
import XCTest

@testable import LecternRoom

/// The queue of conversions (docs/protocol.md §30.4), with a hand-moved clock: how many run
/// at once, the order, the budget, stops and cancels, who waits.
final class ConversionQueueTests: XCTestCase {
    func entry(_ n: UInt8, name: String = "deck.pptx") -> ContentEntry {
        var e = ContentEntry(id: ContentID(bytes: [UInt8](repeating: n, count: 32))!, name: name, kind: .pdf, size: 1000, pages: 0)
        e.convertedFrom = "pptx"
        e.awaitsConversion = true
        return e
    }
    func waiter(_ c: ConnectionID, tag: UInt16 = 7) -> ConversionQueue.Waiter { .init(connection: c, tag: tag, beginTag: 3) }

    func testOneAtATimeTheOthersWaitInOrderAndStartAsOneEnds() throws {
        var q = ConversionQueue(limits: .init(slots: 1, maxWaiting: 8, budget: 60))
        XCTAssertEqual(try q.add(entry(1), format: "pptx", uploader: 2, waiter: waiter(1), now: 0), [.start(entry(1), format: "pptx")])
        XCTAssertEqual(try q.add(entry(2), format: "pptx", uploader: 3, waiter: waiter(2), now: 1), [])
        XCTAssertEqual(try q.add(entry(3), format: "docx", uploader: 3, waiter: waiter(3), now: 2), [])
        XCTAssertEqual(q.ahead(of: entry(2).id), 0)
        XCTAssertEqual(q.ahead(of: entry(3).id), 1)
        XCTAssertEqual(q.progress(entry(3).id, now: 2)?.stage, .queued)
        XCTAssertEqual(q.progress(entry(3).id, now: 2)?.ahead, 1)
        let (done, next) = q.finished(entry(1).id, now: 10)
        XCTAssertEqual(done?.waiters, [waiter(1)])
        XCTAssertEqual(next, [.start(entry(2), format: "pptx")])
        XCTAssertEqual(q.snapshot(now: 10).map(\.stage), ["converting", "queued"])
        XCTAssertEqual(q.snapshot(now: 10).map(\.id), [entry(2).id, entry(3).id])
    }

    func testTwoSlotsRunTwo() throws {
        var q = ConversionQueue(limits: .init(slots: 2, maxWaiting: 8, budget: 60))
        _ = try q.add(entry(1), format: "pptx", uploader: 2, waiter: nil, now: 0)
        XCTAssertEqual(try q.add(entry(2), format: "odp", uploader: 2, waiter: nil, now: 0), [.start(entry(2), format: "odp")])
        XCTAssertEqual(try q.add(entry(3), format: "odp", uploader: 2, waiter: nil, now: 0), [])
        XCTAssertEqual(q.running.count, 2)
    }

    func testAFullQueueIsRefusedWithItsLimit() throws {
        var q = ConversionQueue(limits: .init(slots: 1, maxWaiting: 1, budget: 60))
        _ = try q.add(entry(1), format: "pptx", uploader: 2, waiter: nil, now: 0)
        _ = try q.add(entry(2), format: "pptx", uploader: 2, waiter: nil, now: 0)
        XCTAssertThrowsError(try q.add(entry(3), format: "pptx", uploader: 2, waiter: nil, now: 0)) { e in
            XCTAssertEqual((e as? LecternError)?.code, .conversionQueueFull)
            XCTAssertEqual((e as? LecternError)?.detail, 1)
        }
    }

    func testTheSameFileAgainOnlyAddsAWaiter() throws {
        var q = ConversionQueue()
        _ = try q.add(entry(1), format: "pptx", uploader: 2, waiter: waiter(1), now: 0)
        XCTAssertEqual(try q.add(entry(1), format: "pptx", uploader: 3, waiter: waiter(5, tag: 9), now: 1), [])
        XCTAssertEqual(q[entry(1).id]?.waiters, [waiter(1), waiter(5, tag: 9)])
        q.forget(1)
        XCTAssertEqual(q[entry(1).id]?.waiters, [waiter(5, tag: 9)])
    }

    func testPastItsBudgetItIsStoppedOnceAndTheDeadlineIsTold() throws {
        var q = ConversionQueue(limits: .init(slots: 1, maxWaiting: 8, budget: 60))
        _ = try q.add(entry(1), format: "pptx", uploader: 2, waiter: nil, now: 100)
        XCTAssertEqual(q.nextDeadline, 160)
        XCTAssertEqual(q.expire(now: 159.9), [])
        XCTAssertEqual(q.expire(now: 160), [.stop(entry(1).id)])
        XCTAssertEqual(q.expire(now: 170), [], "told once")
        XCTAssertNil(q.nextDeadline)
        XCTAssertEqual(q[entry(1).id]?.stopping, .timedOut(seconds: 60))
        let (job, _) = q.finished(entry(1).id, now: 161)
        XCTAssertEqual(job?.stopping, .timedOut(seconds: 60))
    }

    func testAWaitingOneStoppedLeavesAtOnceARunningOneWhenTheShellSaysSo() throws {
        var q = ConversionQueue()
        _ = try q.add(entry(1), format: "pptx", uploader: 2, waiter: nil, now: 0)
        _ = try q.add(entry(2), format: "pptx", uploader: 2, waiter: nil, now: 0)
        let waiting = q.stop(entry(2).id, .cancelled("its uploader cancelled it"), now: 1)
        XCTAssertEqual(waiting.removed?.content, entry(2).id)
        XCTAssertEqual(waiting.actions, [])
        let running = q.stop(entry(1).id, .cancelled("its uploader cancelled it"), now: 1)
        XCTAssertNil(running.removed)
        XCTAssertEqual(running.actions, [.stop(entry(1).id)])
        XCTAssertNotNil(q[entry(1).id], "still in the queue until the shell reports its end")
    }

    func testProgressAndElapsedTimeInWhatTheUploaderIsTold() throws {
        var q = ConversionQueue(limits: .init(slots: 1, maxWaiting: 8, budget: 60))
        _ = try q.add(entry(1), format: "pptx", uploader: 2, waiter: nil, now: 10)
        q.progressed(entry(1).id, done: 12, total: 30)
        let p = try XCTUnwrap(q.progress(entry(1).id, now: 12.5))
        XCTAssertEqual(p, ConversionProgress(content: entry(1).id, stage: .converting, done: 12, total: 30, elapsedMs: 2500, budgetMs: 60000, format: "pptx"))
    }
}
