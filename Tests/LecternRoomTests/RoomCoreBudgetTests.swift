import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// What one connection may cost the room (docs/protocol.md, "Limits"): its output budget,
/// a few errors while unregistered, pictures and uploads in flight; and the quota counting
/// bytes on disk once, part files given up.
final class RoomCoreBudgetTests: XCTestCase {
    typealias H = RoomCoreHarness

    func testAPeerOverItsOutputBudgetIsNotReadFromAndIsDroppedIfItStaysOver() {
        let h = H()
        h.join(1, name: "Ana")
        XCTAssertEqual(H.work(h.handle(.writable(1, false))), [.setReading(1, false)], "nothing more is read while its output waits")
        h.now += 2
        XCTAssertEqual(H.work(h.handle(.writable(1, true))), [.setReading(1, true)])
        h.handle(.writable(1, false))
        h.now += 4.9
        XCTAssertFalse(h.handle(.tick).contains(.close(1)))
        h.now += 0.2
        XCTAssertTrue(h.handle(.tick).contains(.close(1)), "over budget for 5 s: it isn't reading")
    }

    func testAnUnregisteredPeerIsClosedAfterAFewErrors() {
        let h = H()
        _ = h.open(1)
        for i in 1...ProtocolLimits.unregisteredErrorLimit {
            let effects = h.send(.stateRequest, from: 1)
            XCTAssertEqual(H.errorCode(to: 1, effects), .notRegistered)
            XCTAssertEqual(effects.contains(.close(1)), i == ProtocolLimits.unregisteredErrorLimit, "error \(i)")
        }
        // A registered device's errors don't close it.
        let ana = h.join(2, name: "Ana")
        for _ in 0..<10 { XCTAssertFalse(h.send(.control(.next), from: 2, device: ana).contains(.close(2))) }
    }

    func testPicturesInFlightAreCappedPerConnection() {
        let h = H()
        let ana = h.join(1, name: "Ana")
        let shot = Message.screenshotRequest(maxWidth: 640, maxHeight: 0)
        XCTAssertEqual(H.work(h.send(shot, from: 1, tag: 1, device: ana)), [.screenshot(1, tag: 1, maxWidth: 640, maxHeight: 0)])
        XCTAssertEqual(H.work(h.send(shot, from: 1, tag: 2, device: ana)).count, 1)
        let third = h.send(shot, from: 1, tag: 3, device: ana)
        XCTAssertEqual(H.errorCode(to: 1, third), .busy)
        XCTAssertTrue(H.work(third).isEmpty)
        h.handle(.screenshotTaken(1, tag: 1, []))
        XCTAssertEqual(H.work(h.send(shot, from: 1, tag: 4, device: ana)).count, 1, "a slot is free again")
    }

    func testUploadsInFlightAreCappedPerConnection() {
        let h = H()
        let ana = h.join(1, name: "Ana")
        for i in 0..<ProtocolLimits.uploadsPerConnection {
            let b = UploadBegin(content: cid(UInt8(10 + i)), size: 100, kind: .pdf, proof: nil, name: "f\(i).pdf")
            XCTAssertEqual(H.work(h.send(.uploadBegin(b), from: 1, device: ana)).count, 1, "upload \(i)")
        }
        let extra = UploadBegin(content: cid(99), size: 100, kind: .pdf, proof: nil, name: "more.pdf")
        XCTAssertEqual(H.errorCode(to: 1, h.send(.uploadBegin(extra), from: 1, device: ana)), .busy)
        // Beginning one of its own uploads again is not one more.
        let again = UploadBegin(content: cid(10), size: 100, kind: .pdf, proof: nil, name: "f0.pdf")
        XCTAssertNil(H.errorCode(to: 1, h.send(.uploadBegin(again), from: 1, device: ana)))
    }

    /// Sending a stored file again without the possession proof stores nothing new: the
    /// quota is what is on disk, so another person's upload still fits.
    func testAFileStoredTwiceCountsOnceAgainstTheQuota() {
        let stored = ContentEntry(id: cid(7), name: "talk.pdf", kind: .pdf, size: 600_000, pages: 3)
        let h = H(catalog: [stored], storeBytes: 600_000, configure: { $0.diskQuotaMB = 2 })
        let eve = h.join(1, name: "Eve")
        for round in 0..<3 {
            let b = UploadBegin(content: cid(7), size: 600_000, kind: .pdf, proof: nil, name: "again.pdf")
            let began = h.send(.uploadBegin(b), from: 1, device: eve)
            guard case .openPart(_, let w, _, _)? = H.work(began).first else { return XCTFail("round \(round): \(began)") }
            h.handle(.partOpened(cid(7), writer: w, failure: nil))
            XCTAssertNil(H.errorCode(to: 1, h.send(.uploadChunk(UploadChunk(content: cid(7), offset: 0, data: [UInt8](repeating: 0, count: 400_000))), from: 1, device: eve)))
            let upload = UploadToStore(content: cid(7), name: "again.pdf", announcedKind: .pdf, device: eve, uploader: "Eve", size: 600_000)
            h.send(.uploadChunk(UploadChunk(content: cid(7), offset: 400_000, data: [UInt8](repeating: 0, count: 200_000))), from: 1, device: eve)
            h.send(.uploadFinish(content: cid(7)), from: 1, device: eve)
            h.handle(.uploadFinished(1, tag: 7, writer: w, upload, .success(stored)))
        }
        let ana = h.join(2, name: "Ana")
        let hers = UploadBegin(content: cid(8), size: 1_200_000, kind: .pdf, proof: nil, name: "mine.pdf")
        XCTAssertEqual(
            H.work(h.send(.uploadBegin(hers), from: 2, device: ana)), [.openPart(cid(8), writer: 4, offset: 0, hashing: true)],
            "2 MiB quota, 600 kB stored once (not four times): 1.2 MB fit")
    }

    func testEmptyAndAbandonedPartFilesAreRemoved() {
        let h = H(parts: [cid(5): 1000])
        let ana = h.join(1, name: "Ana")
        h.send(.uploadBegin(UploadBegin(content: cid(6), size: 100, kind: .pdf, proof: nil, name: "x.pdf")), from: 1, device: ana)
        h.handle(.partOpened(cid(6), writer: 1, failure: nil))
        h.handle(.closed(1))
        XCTAssertTrue(h.handle(.partClosed(cid(6), writer: 1, size: 0)).contains(.removePart(cid(6))), "nothing to resume")
        h.handle(.tick)   // the old part file is first seen now
        h.now += 23 * 3600
        XCTAssertFalse(h.handle(.tick).contains(.removePart(cid(5))))
        h.now += 3600 + 60
        XCTAssertTrue(h.handle(.tick).contains(.removePart(cid(5))), "a day without progress")
    }
}

extension RoomCoreBudgetTests {
    /// The error that ends an unregistered connection says so in its flag (C49).
    func testTheErrorThatClosesAnUnregisteredPeerSaysSo() {
        let h = H()
        _ = h.open(1)
        var flags: [Bool] = []
        for _ in 1...ProtocolLimits.unregisteredErrorLimit {
            if case .error(let e)? = H.replies(to: 1, h.send(.stateRequest, from: 1)).first { flags.append(e.closesConnection) }
        }
        XCTAssertEqual(flags, Array(repeating: false, count: ProtocolLimits.unregisteredErrorLimit - 1) + [true])
    }
}
