import XCTest
@testable import LecternProtocol

/// The presenter console's pure parts: slide numbering from labels, pdfpc files, the
/// console messages' bodies (§20).
final class ConsoleProtocolTests: XCTestCase {
    let labels = ["1", "2", "2", "2", "3", "iv", "iv", "A-1"]

    func testOverlaysAreGroupedIntoSlidesWithSteps() {
        let n = SlideNumbering(labels: labels)
        XCTAssertEqual(n.slideCount, 5)
        XCTAssertEqual(n.slide(ofPage: 1), SlideSnapshot(label: "1", index: 1, count: 5, step: 1, steps: 1))
        XCTAssertEqual(n.slide(ofPage: 3), SlideSnapshot(label: "2", index: 2, count: 5, step: 2, steps: 3))
        XCTAssertEqual(n.slide(ofPage: 4), SlideSnapshot(label: "2", index: 2, count: 5, step: 3, steps: 3))
        XCTAssertEqual(n.slide(ofPage: 7), SlideSnapshot(label: "iv", index: 4, count: 5, step: 2, steps: 2))
        XCTAssertNil(n.slide(ofPage: 9))
        XCTAssertEqual(n.page(forLabel: "2"), 2, "goto by label lands on the slide's first step")
        XCTAssertEqual(n.page(forLabel: " IV "), 6, "case and blanks don't matter when nothing matches exactly")
        XCTAssertEqual(n.page(forLabel: "A-1"), 8)
        XCTAssertNil(n.page(forLabel: "9"))
        XCTAssertEqual(n.firstPage(ofSlide: 3), 5)
        XCTAssertEqual(n.firstPageOfSlide(containing: 4), 2)
    }

    func testPdfpcJSONIsMatchedToTheDeck() throws {
        let file = """
            {"pdfpcFormat": 2, "duration": 20, "endTime": "14:30", "lastMinutes": 3, "notesPosition": "right",
             "pages": [{"idx": 0, "label": "1", "overlay": 0, "note": "Welcome"},
                       {"idx": 1, "label": "2", "overlay": 0, "note": "The problem"},
                       {"idx": 2, "label": "2", "overlay": 1},
                       {"idx": 5, "label": "iv", "overlay": 0, "note": "Roman ✓"}]}
            """
        let notes = try PdfpcFile.read(Array(file.utf8), for: SlideNumbering(labels: labels))
        XCTAssertEqual(notes[1], "Welcome")
        XCTAssertEqual(notes[2], "The problem")
        XCTAssertNil(notes[3])
        XCTAssertEqual(notes[6], "Roman ✓")
        XCTAssertEqual(notes.durationMinutes, 20)
        XCTAssertEqual(notes.endTime, "14:30")
        XCTAssertEqual(notes.lastMinutes, 3)
        XCTAssertEqual(notes.layout, .right)
    }

    func testPdfpcTextFormatNumbersSlidesNotPages() throws {
        let file = "[file]\ntalk.pdf\n[duration]\n15\n[notes]\n### 1\nHello\n### 3\nThird slide\nsecond line\n"
        let notes = try PdfpcFile.read(Array(file.utf8), for: SlideNumbering(labels: labels))
        XCTAssertEqual(notes[1], "Hello")
        XCTAssertEqual(notes[5], "Third slide\nsecond line", "slide 3 starts on page 5 (slide 2 has three steps)")
        XCTAssertEqual(notes.durationMinutes, 15)
    }

    func testAPdfpcFileForAnotherDeckIsRefused() {
        let tooLong = #"{"pdfpcFormat": 2, "pages": [{"idx": 30, "label": "31", "note": "x"}]}"#
        XCTAssertThrowsError(try PdfpcFile.read(Array(tooLong.utf8), for: SlideNumbering(labels: labels))) {
            XCTAssertEqual(($0 as? LecternError)?.code, .badNotesFile)
        }
        let otherLabels = #"{"pdfpcFormat": 2, "pages": [{"idx": 0, "label": "x"}, {"idx": 1, "label": "y"}, {"idx": 2, "label": "z"}]}"#
        XCTAssertThrowsError(try PdfpcFile.read(Array(otherLabels.utf8), for: SlideNumbering(labels: labels)))
        for junk in ["", "not a pdfpc file", "{\"a\": 1}", "[1,2]", "{\"pdfpcFormat\": 2, \"pages\": 7}"] {
            if junk == "{\"pdfpcFormat\": 2, \"pages\": 7}" {
                XCTAssertEqual(try? PdfpcFile.read(Array(junk.utf8), for: SlideNumbering(labels: labels)), DeckNotes(), "no pages: no notes")
                continue
            }
            XCTAssertThrowsError(try PdfpcFile.read(Array(junk.utf8), for: SlideNumbering(labels: labels)), junk)
        }
        XCTAssertThrowsError(try PdfpcFile.read([0xFF, 0xFE, 0x00], for: SlideNumbering(labels: labels)))
        // Hostile: nested 200 000 deep, or larger than the limit — refused, never a crash.
        let deep = Array(String(repeating: "[", count: 200_000).utf8)
        XCTAssertThrowsError(try PdfpcFile.read(Array("{\"pages\":".utf8) + deep, for: SlideNumbering(labels: labels)))
        XCTAssertThrowsError(try PdfpcFile.read([UInt8](repeating: 0x20, count: ConsoleLimits.maxNotesFileBytes + 1), for: SlideNumbering(labels: labels))) {
            XCTAssertEqual(($0 as? LecternError)?.code, .notesTooLarge)
        }
    }

    func testExportedPdfpcReadsBackTheSame() throws {
        let reply = NotesReply(
            content: "x", layout: .right,
            pages: labels.enumerated().map { i, l in
                NotesReply.Page(page: i + 1, label: l, text: i == 2 ? "step two" : i == 5 ? "Roman" : "", source: i == 2 || i == 5 ? "typed" : "none")
            }, durationMinutes: 25, endTime: "09:05", lastMinutes: 2)
        let back = try PdfpcFile.read(PdfpcFile.write(reply), for: SlideNumbering(labels: labels))
        XCTAssertEqual(back, DeckNotes(pages: [3: "step two", 6: "Roman"], layout: .right, durationMinutes: 25, endTime: "09:05", lastMinutes: 2))
    }

    func testConsoleBodies() throws {
        // notes-request: content id, u32 page.
        XCTAssertEqual(Array(Message.notesRequest(NotesRequest(content: cid(1), page: 0x0102_0304)).encodeBody()[32...]), [1, 2, 3, 4])
        // timer: action, mode, u16 warning minutes, u64 value.
        XCTAssertEqual(
            Message.timer(TimerCommand(action: .start, mode: .countdown, warnMinutes: 5, value: 0x0102)).encodeBody(),
            [1, 2, 0, 5, 0, 0, 0, 0, 0, 0, 1, 2])
        // page-preview keeps its 40-byte form unless the notes half is asked for.
        XCTAssertEqual(Message.pagePreview(PagePreviewRequest(content: cid(1), page: 1, maxWidth: 1, notesHalf: true)).encodeBody().count, 41)
        for bad: [UInt8] in [[9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 0]] {
            let frame = FrameHeader(command: Command.timer.rawValue, deviceID: 1, tag: 1, length: UInt32(8 + bad.count))
            XCTAssertThrowsError(try Message.decode(header: frame, body: bad)) {
                XCTAssertEqual(($0 as? LecternError)?.code, .malformedBody)
            }
        }
        let longNote = [UInt8](repeating: 0x41, count: ConsoleLimits.maxNoteBytes + 1)
        let body = cid(1).bytes + [0, 0, 0, 1] + longNote
        XCTAssertThrowsError(
            try Message.decode(header: FrameHeader(command: Command.notesEdit.rawValue, deviceID: 1, tag: 1, length: UInt32(8 + body.count)), body: body))
        // The state's console part: every field present, null when empty.
        let json = String(decoding: sampleState().jsonBytes(), as: UTF8.self)
        XCTAssertTrue(json.contains("\"console\":null"), json)
    }

    private func sampleState() -> Snapshot {
        Snapshot(revision: 1, room: "R", floorMode: .open, floor: FloorSnapshot(), devices: [], screen: .idle)
    }
}
