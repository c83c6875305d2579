import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// Uploads through the ledger: a new file, a resumed one, a take-over, the quota, the
/// back-pressure, finish; every file operation is an effect, every result an event.
final class RoomCoreUploadTests: XCTestCase {
    typealias H = RoomCoreHarness
    let file = cid(7)

    func begin(size: UInt64, kind: ContentKind? = .pdf, proof: [UInt8]? = nil) -> UploadBegin {
        UploadBegin(content: file, size: size, kind: kind, proof: proof, name: "talk.pdf")
    }

    func chunk(_ offset: UInt64, _ count: Int) -> Message {
        .uploadChunk(UploadChunk(content: file, offset: offset, data: [UInt8](repeating: 1, count: count)))
    }

    func testANewFileIsOpenedWrittenAndStored() {
        let h = H()
        let ana = h.join(1, name: "Ana")
        let began = h.send(.uploadBegin(begin(size: 3000)), from: 1, tag: 11, device: ana)
        XCTAssertEqual(H.work(began), [.openPart(file, writer: 1, offset: 0, hashing: true)])
        XCTAssertTrue(H.replies(to: 1, began).isEmpty, "ready once the part file is open")
        XCTAssertEqual(
            H.replies(to: 1, h.handle(.partOpened(file, writer: 1, failure: nil))),
            [.uploadReady(UploadReady(content: file, status: .sendFrom, offset: 0))])
        XCTAssertEqual(H.work(h.send(chunk(0, 1000), from: 1, device: ana)), [.writeChunk(file, writer: 1, [UInt8](repeating: 1, count: 1000))])
        h.send(chunk(1000, 2000), from: 1, device: ana)
        XCTAssertTrue(H.replies(to: 1, h.handle(.chunkWritten(file, writer: 1, bytes: 1000, failure: nil))).isEmpty)
        XCTAssertEqual(
            H.replies(to: 1, h.handle(.chunkWritten(file, writer: 1, bytes: 2000, failure: nil))),
            [.uploadProgress(content: file, stored: 3000)], "progress once the last byte is in the file, with the begin's tag")
        let finish = h.send(.uploadFinish(content: file), from: 1, tag: 12, device: ana)
        let store = UploadToStore(content: file, name: "talk.pdf", announcedKind: .pdf, device: ana, uploader: "Ana", size: 3000)
        XCTAssertEqual(H.work(finish), [.finishUpload(1, tag: 12, writer: 1, store)])
        let entry = ContentEntry(id: file, name: "talk.pdf", kind: .pdf, size: 3000, pages: 3)
        let stored = h.handle(.uploadFinished(1, tag: 12, writer: 1, store, .success(entry)))
        XCTAssertEqual(H.replies(to: 1, stored), [.uploadStored(UploadStored(content: file, kind: .pdf, size: 3000, pageCount: 3, durationMs: 0))])
        // Stored, and Ana's: she may preview its pages.
        XCTAssertEqual(
            H.work(h.send(.pagePreview(PagePreviewRequest(content: file, page: 3, maxWidth: 480)), from: 1, tag: 13, device: ana)),
            [.renderPreview(1, tag: 13, content: file.hex, page: 3, maxWidth: 480, maxHeight: 0, part: .whole)])
    }

    func testAPartialFileResumesWhereItStopped() {
        let h = H(parts: [cid(7): 1200])
        let ana = h.join(1, name: "Ana")
        XCTAssertEqual(
            H.work(h.send(.uploadBegin(begin(size: 3000)), from: 1, device: ana)),
            [.openPart(file, writer: 1, offset: 1200, hashing: false)])
        XCTAssertEqual(
            H.replies(to: 1, h.handle(.partOpened(file, writer: 1, failure: nil))),
            [.uploadReady(UploadReady(content: file, status: .sendFrom, offset: 1200))])
        XCTAssertEqual(H.errorCode(to: 1, h.send(chunk(0, 10), from: 1, device: ana)), .wrongOffset)
    }

    /// A device that reconnected begins again while its old connection's writer still
    /// holds the part file: the old writer lets go first (no waiting on the loop), then
    /// the new begin resumes from what it wrote.
    func testTheNewestBeginTakesThePartFileOverOnceTheOldWriterLetGo() {
        let h = H()
        let ana = h.join(1, name: "Ana")
        let ana2 = h.join(2, name: "Ana again")
        h.send(.uploadBegin(begin(size: 3000)), from: 1, device: ana)
        h.handle(.partOpened(file, writer: 1, failure: nil))
        h.send(chunk(0, 1000), from: 1, device: ana)
        let takeOver = h.send(.uploadBegin(begin(size: 3000)), from: 2, tag: 21, device: ana2)
        XCTAssertEqual(H.work(takeOver), [.closePart(file, writer: 1)])
        XCTAssertTrue(H.work(h.send(chunk(1000, 1000), from: 1, device: ana)).isEmpty, "the old upload's chunks are dropped")
        let resumed = h.handle(.partClosed(file, writer: 1, size: 1000))
        XCTAssertEqual(H.work(resumed), [.openPart(file, writer: 2, offset: 1000, hashing: false)])
        XCTAssertEqual(
            H.replies(to: 2, h.handle(.partOpened(file, writer: 2, failure: nil))),
            [.uploadReady(UploadReady(content: file, status: .sendFrom, offset: 1000))])
        XCTAssertEqual(H.errorCode(to: 1, h.send(.uploadFinish(content: file), from: 1, device: ana)), .noUpload)
    }

    func testAConnectionThatGoesAwayKeepsWhatItSent() {
        let h = H()
        let ana = h.join(1, name: "Ana")
        h.send(.uploadBegin(begin(size: 3000)), from: 1, device: ana)
        h.handle(.partOpened(file, writer: 1, failure: nil))
        h.send(chunk(0, 1000), from: 1, device: ana)
        XCTAssertEqual(H.work(h.handle(.closed(1))), [.closePart(file, writer: 1)])
        h.handle(.partClosed(file, writer: 1, size: 1000))
        let back = h.join(2, name: "Ana")
        XCTAssertEqual(
            H.work(h.send(.uploadBegin(begin(size: 3000)), from: 2, device: back)),
            [.openPart(file, writer: 2, offset: 1000, hashing: false)])
    }

    func testTheQuotaRefusesBeginsAndChunksThatDontFit() {
        let h = H(configure: { $0.diskQuotaMB = 1 })
        let ana = h.join(1, name: "Ana")
        XCTAssertEqual(H.errorCode(to: 1, h.send(.uploadBegin(begin(size: 2 << 20)), from: 1, device: ana)), .quotaFull)
        h.send(.uploadBegin(begin(size: 1 << 20)), from: 1, device: ana)
        h.handle(.partOpened(file, writer: 1, failure: nil))
        // Someone else's upload filled the disk meanwhile.
        let other = UploadBegin(content: cid(8), size: 600_000, kind: .pdf, proof: nil, name: "b.pdf")
        let ben = h.join(2, name: "Ben")
        h.send(.uploadBegin(other), from: 2, device: ben)
        h.handle(.partOpened(cid(8), writer: 2, failure: nil))
        h.send(.uploadChunk(UploadChunk(content: cid(8), offset: 0, data: [UInt8](repeating: 0, count: 600_000))), from: 2, device: ben)
        XCTAssertEqual(H.errorCode(to: 1, h.send(chunk(0, 600_000), from: 1, device: ana)), .quotaFull)
        XCTAssertTrue(H.work(h.send(chunk(600_000, 10), from: 1, device: ana)).isEmpty, "after a failed chunk the rest is dropped")
    }

    /// The disk is slower than the network: past 8 MiB queued the room stops reading from
    /// the uploader, and reads again once fewer than 2 MiB wait.
    func testBackPressureStopsAndRestartsReading() {
        let h = H()
        let ana = h.join(1, name: "Ana")
        h.send(.uploadBegin(begin(size: 20 << 20)), from: 1, device: ana)
        h.handle(.partOpened(file, writer: 1, failure: nil))
        var paused: [RoomEffect] = []
        for i in 0..<9 { paused += H.work(h.send(chunk(UInt64(i) << 20, 1 << 20), from: 1, device: ana)).filter { if case .setReading = $0 { return true } else { return false } } }
        XCTAssertEqual(paused, [.setReading(1, false)], "once, when over 8 MiB")
        var resumed: [RoomEffect] = []
        for i in 0..<9 {
            let e = H.work(h.handle(.chunkWritten(file, writer: 1, bytes: 1 << 20, failure: nil)))
            if !e.isEmpty { resumed.append(contentsOf: e); XCTAssertEqual(i, 7, "below 2 MiB after 8 written") }
        }
        XCTAssertEqual(resumed, [.setReading(1, true)])
    }

    func testAFailedWriteIsToldWithTheNextChunk() {
        let h = H()
        let ana = h.join(1, name: "Ana")
        h.send(.uploadBegin(begin(size: 3000)), from: 1, device: ana)
        h.handle(.partOpened(file, writer: 1, failure: nil))
        h.send(chunk(0, 1000), from: 1, device: ana)
        XCTAssertTrue(H.replies(to: 1, h.handle(.chunkWritten(file, writer: 1, bytes: 1000, failure: "disk full"))).isEmpty)
        XCTAssertEqual(H.errorCode(to: 1, h.send(chunk(1000, 1000), from: 1, device: ana)), .storageFailed)
    }

    func testARefusedFileLeavesTheQuotaAndIsSaidToTheUploader() {
        let h = H(configure: { $0.diskQuotaMB = 1 })
        let ana = h.join(1, name: "Ana")
        h.send(.uploadBegin(begin(size: 1 << 20)), from: 1, device: ana)
        h.handle(.partOpened(file, writer: 1, failure: nil))
        h.send(chunk(0, 1 << 20), from: 1, device: ana)
        h.handle(.chunkWritten(file, writer: 1, bytes: 1 << 20, failure: nil))
        h.send(.uploadFinish(content: file), from: 1, tag: 3, device: ana)
        let store = UploadToStore(content: file, name: "talk.pdf", announcedKind: .pdf, device: ana, uploader: "Ana", size: 1 << 20)
        let refused = h.handle(.uploadFinished(1, tag: 3, writer: 1, store, .failure(UploadRefusal(.hashMismatch, discarded: true))))
        XCTAssertEqual(H.errorCode(to: 1, refused), .hashMismatch)
        // The quota has room again for the same size.
        XCTAssertEqual(
            H.work(h.send(.uploadBegin(begin(size: 1 << 20)), from: 1, device: ana)),
            [.openPart(file, writer: 2, offset: 0, hashing: true)])
    }

    func testAStoredFileIsProvedNotSentAndAWrongProofMeansSendingIt() {
        let h = H(catalog: [ContentEntry(id: cid(7), name: "talk.pdf", kind: .pdf, size: 3000, pages: 3)])
        let ana = h.join(1, name: "Ana")
        let b = begin(size: 3000, proof: Array(repeating: 5, count: 32))
        XCTAssertEqual(H.work(h.send(.uploadBegin(b), from: 1, tag: 4, device: ana)), [.checkProof(1, tag: 4, b, challenge: H.challenge(1))])
        XCTAssertEqual(H.work(h.handle(.proofChecked(1, tag: 4, b, matches: false))), [.openPart(file, writer: 1, offset: 0, hashing: true)])
    }
}
