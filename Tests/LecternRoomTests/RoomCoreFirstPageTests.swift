import LecternModel
import LecternProtocol
import XCTest

@testable import LecternRoom

/// A converted deck shown by its first page while the rest converts (docs/protocol.md
/// §30.8), through the room with a hand-moved clock: its uploader is told at once
/// (conversion-progress stage 3) and may present it; next past the pages ready says the
/// slide is still converting and the wall stays; the state says how many are ready; once
/// the whole deck exists the screen's page count grows without showing anything again, the
/// neighbours are drawn ahead, and ink and notes of page 1 are still there; a conversion
/// that fails after its first page takes the deck off the wall and tells its uploader why.
final class RoomCoreFirstPageTests: XCTestCase {
    typealias H = RoomCoreHarness
    let file = cid(9)

    func pending() -> ContentEntry {
        var e = ContentEntry(id: file, name: "deck.pptx", kind: .pdf, size: 5000, pages: 0)
        e.convertedFrom = "pptx"
        e.awaitsConversion = true
        return e
    }
    /// The deck of its first page alone, as the shell reports it.
    func firstPage() -> ContentEntry {
        var e = ContentEntry(id: file, name: "deck.pptx", kind: .pdf, size: 5000, pages: 1)
        e.convertedFrom = "pptx"
        e.awaitsConversion = true
        return e
    }
    func whole(pages: Int = 30) -> ContentEntry {
        var e = ContentEntry(id: file, name: "deck.pptx", kind: .pdf, size: 5000, pages: pages)
        e.convertedFrom = "pptx"
        e.convertedBytes = 800
        return e
    }

    /// Ana uploads deck.pptx (upload-begin tag 11, upload-finish tag 12); it is converting.
    func upload(_ h: H, device ana: DeviceID) {
        h.send(.uploadBegin(UploadBegin(content: file, size: 5000, kind: nil, proof: nil, name: "deck.pptx")), from: 1, tag: 11, device: ana)
        h.handle(.partOpened(file, writer: 1, failure: nil))
        h.send(.uploadChunk(UploadChunk(content: file, offset: 0, data: [UInt8](repeating: 1, count: 5000))), from: 1, device: ana)
        h.handle(.chunkWritten(file, writer: 1, bytes: 5000, failure: nil))
        h.send(.uploadFinish(content: file), from: 1, tag: 12, device: ana)
        let store = UploadToStore(content: file, name: "deck.pptx", announcedKind: nil, device: ana, uploader: "Ana", size: 5000)
        XCTAssertEqual(H.work(h.handle(.uploadFinished(1, tag: 12, writer: 1, store, .success(pending())))), [.startConversion(pending(), format: "pptx")])
    }

    func progress(to id: ConnectionID, _ effects: [RoomEffect]) -> [ConversionProgress] {
        H.messages(to: id, effects).compactMap { if case .conversionProgress(let p) = $0 { return p } else { return nil } }
    }

    func testThePresenterShowsPageOneWhileTheRestConvertsThenTheDeckGrowsUnderIt() throws {
        let h = H(floor: .open)
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        upload(h, device: ana)
        h.now += 1.2

        // Page 1 ready: Ana is told with the upload-begin's tag; her upload-finish still waits.
        let ready = h.handle(.conversionFirstPage(file, firstPage(), pagesInAll: 30))
        XCTAssertEqual(
            progress(to: 1, ready), [ConversionProgress(content: file, stage: .firstPage, done: 1, total: 30, elapsedMs: 1200, budgetMs: 60000, format: "pptx")])
        let answers = H.replies(to: 1, ready).filter { if case .conversionProgress = $0 { false } else { true } }
        XCTAssertTrue(answers.isEmpty, "the upload-finish is answered once, when the whole deck exists: \(answers)")
        XCTAssertEqual(H.states(to: 1, ready).last?.conversions?.first?.ready, 1, "the state says how many pages are ready")

        let shown = h.send(.present(content: file, page: 1), from: 1, tag: 20, device: ana)
        XCTAssertEqual(H.shows(shown), [page(9, 1)])
        h.shown(shown)
        var screen = h.core.snapshot(now: h.now).screen
        XCTAssertEqual([screen.page, screen.pageCount], [1, 1], "the deck has the pages that exist")

        // Next past them: said, and the wall stays.
        let next = h.send(.control(.next), from: 1, tag: 21, device: ana)
        XCTAssertEqual(H.errorCode(to: 1, next), .pageStillConverting)
        XCTAssertTrue(H.shows(next).isEmpty, "nothing shown")
        if case .controlFailed(let e)? = H.replies(to: 1, next).first {
            XCTAssertEqual(e.message, "Slide 2 of deck.pptx is still being converted — it can be shown in a few seconds; the wall stays on slide 1.")
            XCTAssertEqual(e.detail, 1)
        }
        XCTAssertEqual(H.errorCode(to: 1, h.send(.control(.goto(page: 12)), from: 1, tag: 22, device: ana)), .pageStillConverting)
        XCTAssertEqual(H.errorCode(to: 1, h.send(.present(content: file, page: 3), from: 1, tag: 23, device: ana)), .pageStillConverting)
        XCTAssertEqual(h.core.snapshot(now: h.now).screen.page, 1)

        // Ink and a typed note on page 1 while it converts.
        let p = InkPoint(x: 10, y: 10)
        h.send(.ink(.strokeBegin(StrokeBegin(points: [p]))), from: 1, device: ana)
        h.send(.ink(.strokeEnd([p])), from: 1, device: ana)
        XCTAssertEqual(H.replies(to: 1, h.send(.notesEdit(NotesEdit(content: file, page: 1, text: "Ana's note")), from: 1, device: ana)), [.ok])

        // The whole deck: the screen's page count grows, the page stays, nothing is drawn
        // again; its neighbours are drawn ahead. The upload-finish is answered now.
        h.now += 2
        let done = h.handle(.conversionEnded(file, .success(whole())))
        XCTAssertTrue(H.shows(done).isEmpty, "the same page: nothing drawn again")
        XCTAssertTrue(H.work(done).contains(.prerender(content: file.hex, page: 1, part: .whole)))
        XCTAssertEqual(H.replies(to: 1, done).first, .uploadStored(UploadStored(content: file, kind: .pdf, size: 5000, pageCount: 30, durationMs: 0)))
        screen = h.core.snapshot(now: h.now).screen
        XCTAssertEqual([screen.page, screen.pageCount], [1, 30])
        XCTAssertEqual(H.states(to: 1, done).last?.screen.pageCount, 30, "every device is told")
        XCTAssertEqual(h.core.ink.strokes(on: InkPageRef(content: file.hex, page: 1)).count, 1, "the ink of page 1 is still there")
        var notes: String?
        for m in H.replies(to: 1, h.send(.notesRequest(NotesRequest(content: file, page: 1)), from: 1, device: ana)) {
            if case .notes(let r) = m { notes = r.pages.first?.text }
        }
        XCTAssertEqual(notes, "Ana's note", "the note typed on page 1 is the deck's")

        let turned = h.send(.control(.next), from: 1, tag: 24, device: ana)
        XCTAssertEqual(H.shows(turned), [page(9, 2)])
    }

    func testAPresentWaitingBehindAnotherChangeGetsTheWholeDeck() throws {
        let h = H(floor: .open)
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        upload(h, device: ana)
        h.handle(.conversionFirstPage(file, firstPage(), pagesInAll: 30))
        // Shown but not yet on the wall when the whole deck arrives.
        let shown = h.send(.present(content: file, page: 1), from: 1, tag: 20, device: ana)
        h.handle(.conversionEnded(file, .success(whole())))
        h.shown(shown)
        XCTAssertEqual(h.core.snapshot(now: h.now).screen.pageCount, 30, "the page being shown committed with every page")
        XCTAssertEqual(H.shows(h.send(.control(.next), from: 1, tag: 21, device: ana)), [page(9, 2)])
    }

    func testAConversionThatFailsAfterItsFirstPageTakesTheDeckOffTheWall() throws {
        let h = H(
            floor: .open,
            configure: {
                $0.convert.timeoutSeconds = 20; $0.keepaliveTimeout = 600
            })
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        upload(h, device: ana)
        h.handle(.conversionFirstPage(file, firstPage(), pagesInAll: 30))
        h.shown(h.send(.present(content: file, page: 1), from: 1, tag: 20, device: ana))
        h.now += 20
        XCTAssertTrue(H.work(h.handle(.tick)).contains(.stopConversion(file)), "the budget counts from its start, page 1 or not")
        let ended = h.handle(.conversionEnded(file, .failure(.conversionCancelled("deck.pptx", "it was stopped"))))
        XCTAssertEqual(H.errorCode(to: 1, ended), .conversionTimedOut, "the uploader is told why, as the answer to the upload")
        XCTAssertTrue(H.work(ended).contains(.discardUpload(file)))
        XCTAssertEqual(H.shows(ended), [.idle], "the deck is gone from the wall")
        XCTAssertEqual(H.errorCode(to: 1, h.send(.present(content: file, page: 1), from: 1, tag: 21, device: ana)), .unknownContent)
    }

    func testAFirstPageAfterTheRoomStoppedTheConversionIsNotShown() throws {
        let h = H(floor: .open)
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        upload(h, device: ana)
        h.send(.conversionCancel(content: file), from: 1, tag: 6, device: ana)
        let late = h.handle(.conversionFirstPage(file, firstPage(), pagesInAll: 30))
        XCTAssertTrue(progress(to: 1, late).isEmpty)
        XCTAssertEqual(H.errorCode(to: 1, h.send(.present(content: file, page: 1), from: 1, tag: 21, device: ana)), .stillConverting)
    }

    /// Wrap-around (`wrap_around`) doesn't take Next on the last page ready back to page 1.
    func testWrapAroundWaitsForTheWholeDeck() throws {
        let h = H(floor: .open, configure: { $0.wrapAround = true })
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        upload(h, device: ana)
        var two = firstPage()
        two.pages = 2
        h.handle(.conversionFirstPage(file, two, pagesInAll: 30))
        h.shown(h.send(.present(content: file, page: 2), from: 1, tag: 20, device: ana))
        XCTAssertEqual(H.errorCode(to: 1, h.send(.control(.next), from: 1, tag: 21, device: ana)), .pageStillConverting)
    }
}
