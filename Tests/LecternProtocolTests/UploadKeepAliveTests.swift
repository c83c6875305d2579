import XCTest
@testable import LecternProtocol
import LecternTestKit

final class UploadTests: XCTestCase {
    func begin(size: UInt64, name: String = "deck.pdf") -> UploadBegin {
        UploadBegin(content: cid(1), size: size, kind: .pdf, proof: nil, name: name)
    }

    func testLimits() {
        assertThrowsCode(.fileTooLarge) { try UploadSession.checkBegin(begin(size: 200_000_001), maxFileSize: 200_000_000, quota: 4_000_000_000, freeQuota: 4_000_000_000) }
        assertThrowsCode(.quotaFull) { try UploadSession.checkBegin(begin(size: 100), maxFileSize: 1000, quota: 4_000_000_000, freeQuota: 99) }
        XCTAssertNoThrow(try UploadSession.checkBegin(begin(size: 100), maxFileSize: 1000, quota: 4_000_000_000, freeQuota: 50, alreadyStored: 50))
        assertThrowsCode(.invalidFileName) { try UploadSession.checkBegin(begin(size: 1, name: "a/b"), maxFileSize: 10, quota: 10, freeQuota: 10) }
        do {
            try UploadSession.checkBegin(begin(size: 300_000_000), maxFileSize: 200_000_000, quota: 1, freeQuota: 1)
        } catch {
            XCTAssertEqual(error.message, "The file is larger than the 200 MB limit.")
            XCTAssertEqual(error.detail, 200_000_000)
        }
    }

    func testChunksResumeAndFinish() throws {
        var s = UploadSession(begin: begin(size: 10 << 20), alreadyStored: 3 << 20, progressInterval: 4 << 20)
        XCTAssertEqual(s.stored, 3 << 20)
        assertThrowsCode(.wrongOffset) { try s.accept(offset: 0, count: 10) }
        XCTAssertNil(try s.accept(offset: 3 << 20, count: 1 << 20))
        XCTAssertNil(try s.accept(offset: 4 << 20, count: 1 << 20))
        assertThrowsCode(.uploadIncomplete) { try s.checkFinish() }
        XCTAssertNil(try s.accept(offset: 5 << 20, count: 1 << 20))
        XCTAssertEqual(try s.accept(offset: 6 << 20, count: 1 << 20), 7 << 20, "progress every 4 MiB")
        assertThrowsCode(.beyondDeclaredSize) { try s.accept(offset: 7 << 20, count: 4 << 20) }
        XCTAssertNil(try s.accept(offset: 7 << 20, count: 2 << 20))
        XCTAssertEqual(try s.accept(offset: 9 << 20, count: 1 << 20), 10 << 20, "progress at the end")
        XCTAssertNoThrow(try s.checkFinish())
    }

    /// Progress comes every 1/16 of the file, 64 KiB to 4 MiB (docs/protocol.md §12.1).
    func testTheProgressStepFollowsTheFilesSize() throws {
        XCTAssertEqual(ProtocolLimits.uploadProgressStep(size: 3000), 64 << 10)
        XCTAssertEqual(ProtocolLimits.uploadProgressStep(size: 16 << 20), 1 << 20)
        XCTAssertEqual(ProtocolLimits.uploadProgressStep(size: 500 << 20), 4 << 20)
        var s = UploadSession(begin: begin(size: 2 << 20), alreadyStored: 0)
        XCTAssertEqual(s.progressInterval, 128 << 10)
        XCTAssertNil(try s.accept(offset: 0, count: 100 << 10))
        XCTAssertEqual(try s.accept(offset: 100 << 10, count: 100 << 10), 200 << 10)
    }

    func testPlan() {
        XCTAssertEqual(UploadPlan.chunks(size: 2_500_000, from: 1_000_000), [1_000_000..<2_048_576, 2_048_576..<2_500_000])
        XCTAssertEqual(UploadPlan.chunks(size: 10, from: 10), [])
        XCTAssertEqual(UploadPlan.chunks(size: 10, from: 0, chunkSize: 4), [0..<4, 4..<8, 8..<10])
    }
}

final class KeepAliveTests: XCTestCase {
    func testPingsWhenIdleAndTimesOutASilentPeer() {
        var k = KeepAlive(now: 0)
        XCTAssertEqual(k.poll(now: 1), .none)
        XCTAssertEqual(k.poll(now: 2), .sendPing(nonce: 1))
        XCTAssertEqual(k.poll(now: 3), .none, "one ping per interval")
        XCTAssertEqual(k.poll(now: 4), .sendPing(nonce: 2))
        XCTAssertEqual(k.poll(now: 5.9), .none)
        XCTAssertEqual(k.poll(now: 6), .timedOut)
    }

    func testAnsweringPeerStaysAlive() {
        var k = KeepAlive(now: 0)
        var t = 0.0
        while t < 60 {
            t += 0.5
            if case .sendPing = k.poll(now: t) { k.noteReceived(now: t + 0.05) }   // the pong
            XCTAssertNotEqual(k.poll(now: t), .timedOut)
        }
    }

    func testBusySenderPingsAndQueuedOutputPausesTheClock() {
        var k = KeepAlive(now: 0)
        // We keep sending (state pushes) but hear nothing: still ping after 2 s.
        k.noteSent(now: 1.5)
        XCTAssertEqual(k.poll(now: 2), .sendPing(nonce: 1))
        // A big download in flight: no time-out while output is queued.
        XCTAssertNotEqual(k.poll(now: 10, outboundPending: true), .timedOut)
        XCTAssertNotEqual(k.poll(now: 12), .timedOut)
        XCTAssertEqual(k.poll(now: 16), .timedOut)
        XCTAssertLessThanOrEqual(KeepAlive(now: 0).nextPoll, 2)
    }
}
