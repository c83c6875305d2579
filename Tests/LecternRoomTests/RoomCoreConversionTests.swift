import LecternModel
import LecternProtocol
import XCTest

@testable import LecternRoom

/// Converted files through the room (docs/protocol.md §30): an upload stored to be
/// converted is answered "stored, waiting" at once and upload-stored once its PDF exists;
/// showing it before is `stillConverting`; the budget, a cancel and a failure remove the
/// original and answer the uploader; a restart converts again what wasn't.
final class RoomCoreConversionTests: XCTestCase {
    typealias H = RoomCoreHarness
    let file = cid(9)

    func pending(_ id: ContentID) -> ContentEntry {
        var e = ContentEntry(id: id, name: "deck.pptx", kind: .pdf, size: 5000, pages: 0)
        e.convertedFrom = "pptx"
        e.awaitsConversion = true
        return e
    }
    func converted(_ id: ContentID, pages: Int = 30) -> ContentEntry {
        var e = ContentEntry(id: id, name: "deck.pptx", kind: .pdf, size: 5000, pages: pages)
        e.convertedFrom = "pptx"
        e.convertedBytes = 800
        return e
    }

    /// The tags of the frames of `command` sent to `id`.
    func tags(of command: Command, to id: ConnectionID, _ effects: [RoomEffect]) -> [UInt16] {
        effects.compactMap {
            guard case .send(let to, let bytes) = $0, to == id, bytes.first == command.rawValue, let h = try? FrameHeader.decode(bytes) else { return nil }
            return h.tag
        }
    }

    /// Upload to upload-finish; returns the effects of the stored upload's report.
    func upload(_ h: H, device ana: DeviceID, tag: UInt16 = 12) -> [RoomEffect] {
        h.send(.uploadBegin(UploadBegin(content: file, size: 5000, kind: nil, proof: nil, name: "deck.pptx")), from: 1, tag: 11, device: ana)
        h.handle(.partOpened(file, writer: 1, failure: nil))
        h.send(.uploadChunk(UploadChunk(content: file, offset: 0, data: [UInt8](repeating: 1, count: 5000))), from: 1, device: ana)
        h.handle(.chunkWritten(file, writer: 1, bytes: 5000, failure: nil))
        h.send(.uploadFinish(content: file), from: 1, tag: tag, device: ana)
        let store = UploadToStore(content: file, name: "deck.pptx", announcedKind: nil, device: ana, uploader: "Ana", size: 5000)
        return h.handle(.uploadFinished(1, tag: tag, writer: 1, store, .success(pending(file))))
    }

    func testStoredThenConvertedThenStoredIsAnsweredAndTheDeckShows() throws {
        let h = H(floor: .open)
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        let stored = upload(h, device: ana)
        XCTAssertEqual(H.work(stored), [.startConversion(pending(file), format: "pptx")])
        XCTAssertEqual(Set(tags(of: .conversionProgress, to: 1, stored)), [11], "the upload-begin's tag: the finish's reply stays upload-stored (§2.6)")
        let told = H.messages(to: 1, stored).compactMap { m -> ConversionProgress? in if case .conversionProgress(let p) = m { return p } else { return nil } }
        XCTAssertEqual(told.first?.stage, .queued, "first: stored, on disk")
        XCTAssertEqual(told.last?.stage, .converting)
        XCTAssertEqual(H.states(to: 1, stored).last?.conversions?.map(\.stage), ["converting"])
        XCTAssertEqual(H.errorCode(to: 1, h.send(.present(content: file, page: 1), from: 1, tag: 20, device: ana)), .stillConverting)

        h.now += 2
        let progressed = h.handle(.conversionProgressed(file, done: 12, total: 30))
        XCTAssertEqual(
            H.messages(to: 1, progressed).first,
            .conversionProgress(ConversionProgress(content: file, stage: .converting, done: 12, total: 30, elapsedMs: 2000, budgetMs: 60000, format: "pptx")))

        let ended = h.handle(.conversionEnded(file, .success(converted(file))))
        XCTAssertEqual(H.replies(to: 1, ended).first, .uploadStored(UploadStored(content: file, kind: .pdf, size: 5000, pageCount: 30, durationMs: 0)))
        XCTAssertEqual(H.states(to: 1, ended).last?.conversions, [])
        let shown = h.send(.present(content: file, page: 2), from: 1, tag: 21, device: ana)
        XCTAssertEqual(H.shows(shown), [page(9, 2)])
        h.shown(shown)
        XCTAssertEqual(h.core.snapshot(now: h.now).screen.content?.convertedFrom, "pptx")
    }

    func testPastItsBudgetTheConversionIsStoppedAndTheUploaderToldTheLimit() throws {
        // The clock moves 20 s without pings: the keep-alive is not what this is about.
        let h = H(
            floor: .open,
            configure: {
                $0.convert.timeoutSeconds = 20; $0.keepaliveTimeout = 600
            })
        let ana = h.join(1, name: "Ana")
        upload(h, device: ana)
        h.now += 19
        XCTAssertFalse(H.work(h.handle(.tick)).contains(.stopConversion(file)))
        h.now += 1
        XCTAssertTrue(H.work(h.handle(.tick)).contains(.stopConversion(file)))
        let ended = h.handle(.conversionEnded(file, .failure(.conversionCancelled("deck.pptx", "it was stopped"))))
        XCTAssertEqual(H.errorCode(to: 1, ended), .conversionTimedOut)
        XCTAssertTrue(H.work(ended).contains(.discardUpload(file)), "the original goes")
        XCTAssertEqual(H.errorCode(to: 1, h.send(.pagePreview(PagePreviewRequest(content: file, page: 1, maxWidth: 100)), from: 1, tag: 20, device: ana)), .unknownContent)
    }

    func testTheUploaderCancelsAndSomeoneElseMayNot() throws {
        let h = H(floor: .open)
        let ana = h.join(1, name: "Ana")
        let bo = h.join(2, name: "Bo")
        upload(h, device: ana)
        XCTAssertEqual(H.errorCode(to: 2, h.send(.conversionCancel(content: file), from: 2, tag: 5, device: bo)), .notYourContent)
        let cancel = h.send(.conversionCancel(content: file), from: 1, tag: 6, device: ana)
        XCTAssertEqual(H.replies(to: 1, cancel), [.ok])
        XCTAssertEqual(H.work(cancel), [.stopConversion(file)])
        let ended = h.handle(.conversionEnded(file, .failure(.conversionCancelled("deck.pptx", "it was stopped"))))
        XCTAssertEqual(H.errorCode(to: 1, ended), .conversionCancelled)
        XCTAssertEqual(H.errorCode(to: 1, h.send(.conversionCancel(content: file), from: 1, tag: 7, device: ana)), .notConverting)
    }

    func testAFailureIsToldWithItsReasonAndTheFileMayComeAgain() throws {
        let h = H(floor: .open)
        let ana = h.join(1, name: "Ana")
        upload(h, device: ana)
        let ended = h.handle(.conversionEnded(file, .failure(.conversionTooLarge("deck.pptx", unpackedLimit: 500_000_000))))
        XCTAssertEqual(H.errorCode(to: 1, ended), .conversionTooLarge)
        XCTAssertTrue(H.work(ended).contains(.discardUpload(file)))
    }

    /// The same file uploaded again while it converts (by another device): it is sent
    /// again (a file being converted is not proved, §30.2), and its upload-finish waits for
    /// the same conversion.
    func testTheSameFileUploadedAgainWaitsForTheSameConversion() throws {
        let h = H(floor: .open)
        let ana = h.join(1, name: "Ana")
        let bo = h.join(2, name: "Bo")
        upload(h, device: ana)
        let begin = UploadBegin(content: file, size: 5000, kind: nil, proof: [UInt8](repeating: 3, count: 32), name: "deck.pptx")
        XCTAssertEqual(H.work(h.send(.uploadBegin(begin), from: 2, tag: 30, device: bo)), [.openPart(file, writer: 2, offset: 0, hashing: true)])
        h.handle(.partOpened(file, writer: 2, failure: nil))
        h.send(.uploadChunk(UploadChunk(content: file, offset: 0, data: [UInt8](repeating: 1, count: 5000))), from: 2, device: bo)
        h.handle(.chunkWritten(file, writer: 2, bytes: 5000, failure: nil))
        h.send(.uploadFinish(content: file), from: 2, tag: 31, device: bo)
        let store = UploadToStore(content: file, name: "deck.pptx", announcedKind: nil, device: bo, uploader: "Bo", size: 5000)
        let stored = h.handle(.uploadFinished(2, tag: 31, writer: 2, store, .success(pending(file))))
        XCTAssertEqual(H.work(stored), [], "no second conversion")
        XCTAssertEqual(tags(of: .conversionProgress, to: 2, stored), [30], "progress with the tag of the upload-begin, not of the finish")
        let ended = h.handle(.conversionEnded(file, .success(converted(file))))
        XCTAssertEqual(H.replies(to: 2, ended).first, .uploadStored(UploadStored(content: file, kind: .pdf, size: 5000, pageCount: 30, durationMs: 0)))
        XCTAssertEqual(H.replies(to: 1, ended).first, .uploadStored(UploadStored(content: file, kind: .pdf, size: 5000, pageCount: 30, durationMs: 0)))
    }

    /// The meeting's end takes the files still converting with it (`uploads_kept =
    /// "meeting"`): the running one is stopped, its original removed with the others.
    func testTheMeetingsEndStopsConversions() throws {
        let h = H(floor: .open)
        let ana = h.join(1, name: "Ana")
        upload(h, device: ana)
        let mo = h.join(3, name: "Mo", role: .moderator)
        let ended = h.send(.audienceSet(.endMeeting), from: 3, device: mo)
        XCTAssertTrue(H.work(ended).contains(.stopConversion(file)))
        let stopped = h.handle(.conversionEnded(file, .failure(.conversionCancelled("deck.pptx", "it was stopped"))))
        XCTAssertTrue(H.work(stopped).contains(.discardUpload(file)))
        XCTAssertEqual(h.core.snapshot(now: h.now).conversions, [])
    }

    func testARestartConvertsAgainWhatWasNotAndViewersSeeNoQueue() throws {
        let h = H(floor: .open, unconverted: [pending(file)])
        let first = h.handle(.tick)
        XCTAssertEqual(H.work(first), [.startConversion(pending(file), format: "pptx")])
        XCTAssertEqual(h.core.snapshot(now: h.now).conversions?.map(\.uploader), [nil])
        XCTAssertNil(h.core.viewerSnapshot(now: h.now).conversions)
    }
}
