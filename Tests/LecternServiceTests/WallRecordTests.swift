import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
import LecternService
import LecternTestSupport
import XCTest

/// The meeting record records the wall as it looked (issue 26, must 5; docs/protocol.md
/// §26.1): a split of two decks is one record page with both pages at their places, drawn
/// as vectors (their text is text), the ink over them and the bars as on the wall. Real
/// sockets, the real record worker, poppler's command-line tools, the wall's own screenshot.
final class WallRecordTests: XCTestCase {
    /// A portrait deck (540×720 pt) whose every page has its name as vector text and a blue box.
    static func portraitDeck(_ title: String, pages: Int, in dir: String) throws -> String {
        try Fixtures.pdf(
            (1...pages).map { n in
                PDFSketch.Page(
                    width: 540, height: 720, boxes: [.init(x: 0.6, y: 0.8, width: 0.3, height: 0.12, color: RGB(30, 60, 220))],
                    texts: [.init("\(title) page \(n)", x: 0.1, y: 0.1, size: 0.06, bold: true)])
            }, in: dir, name: "\(title).pdf")
    }

    func testASplitOfTwoDecksIsOneRecordPageAsTheWallShowedIt() throws {
        let h = try ServiceHarness(floor: .open)
        let alpha = try MeetingRecordTests.deck("Alpha", pages: 2, in: h.dir)   // 4:3 landscape
        let beta = try Self.portraitDeck("Beta", pages: 3, in: h.dir)
        let ann = try h.presenter("Ann")
        let ben = try h.presenter("Ben")
        let mod = try h.moderator()
        _ = try ann.requestFloor()
        let a = try ann.upload(path: alpha).content
        try ann.present(a, page: 1)
        let b = try ben.upload(path: beta).content
        XCTAssertEqual(try mod.request(.layoutSet(.split)), .ok)
        XCTAssertEqual(try mod.request(.paneSet(PaneRequest(pane: 1, .assign(ben.deviceID)))), .ok)
        try ben.present(b, page: 2)   // into his pane
        try ann.draw(MeetingRecordTests.inkPoints, width: .thick, colorIndex: MeetingRecordTests.inkIndex)
        let s = try mod.waitForState { $0.layout?.panes.map(\.screen.page) == [1, 2] && $0.ink?.pages.isEmpty == false }
        XCTAssertEqual(s.layout?.kind, .split)

        // The ink is drawn by the display loop after the state says it is there: wait for it.
        let ink = try XCTUnwrap(InkPalette.color(index: MeetingRecordTests.inkIndex))
        let inkY = 180 + Int(0.7 * 720)
        var shot = Frame(width: 1, height: 1)
        try eventually("the wall shows both panes and the ink", timeout: 10, interval: 0.1) {
            shot = try PNG.decode(try mod.screenshot())
            return self.close(shot.pixel(x: 480, y: inkY), ink)
        }
        XCTAssertEqual([shot.width, shot.height], [1920, 1080])
        XCTAssertEqual(PixelCompare.differingPixels(shot, h.service.stage.screenshot()), 0, "the screenshot is the composed wall, both panes")
        let (data, pages) = try mod.meetingRecord()
        let pdf = try MeetingRecordTests.save(data, h.dir)
        // To look at it: LECTERN_KEEP_RECORD=/tmp/record.pdf
        if let keep = ProcessInfo.processInfo.environment["LECTERN_KEEP_RECORD"] { try? data.write(to: URL(fileURLWithPath: keep)) }
        // The cover, Alpha 1 alone, the split as it first looked (Alpha 1 and an empty pane), the split now.
        XCTAssertEqual(pages, 4)
        XCTAssertEqual(try MeetingRecordTests.pdfPages(pdf), 4)
        let text = try MeetingRecordTests.text(pdf, page: 4)
        XCTAssertTrue(text.contains("Alpha page 1") && text.contains("Beta page 2"), "both pages' text, as text: \(text)")
        XCTAssertFalse(try MeetingRecordTests.text(pdf, page: 3).contains("Beta"), "the split before Ben's page")
        let cover = try MeetingRecordTests.text(pdf, page: 1)
        XCTAssertTrue(cover.contains("Ann: Alpha.pdf") && cover.contains("Ben: Beta.pdf"), cover)

        // The page has the wall's shape, and drawn at the wall's size it is the wall.
        let info = try Fixtures.run("pdfinfo", ["-f", "4", "-l", "4", pdf])
        XCTAssertTrue(String(decoding: info.out, as: UTF8.self).contains("960 x 540 pts"), String(decoding: info.out, as: UTF8.self))
        let drawn = try Fixtures.pdftoppm(pdf, page: 4, width: 1920, height: 1080)
        let mean = PixelCompare.meanDifference(shot, PixelRect(x: 0, y: 0, width: 1920, height: 1080), drawn)
        XCTAssertLessThan(mean, 2.5, "the record's page drawn at 1920×1080 against the wall's screenshot")
        // Each pane's bars and page at their places: pane 0 (960×1080) has the 4:3 page at
        // 960×720 with 180-row bars; pane 1 the portrait page at 810×1080 with 75-column bars.
        let black = RGB(0, 0, 0)
        for (x, y, what) in [(480, 90, "pane 0's top bar"), (480, 990, "pane 0's bottom bar"), (1000, 540, "pane 1's left bar"), (1880, 540, "pane 1's right bar")] {
            XCTAssertEqual(shot.pixel(x: x, y: y), black, "the wall: \(what)")
            XCTAssertTrue(close(drawn.pixel(x: x, y: y), black), "the record: \(what) is \(drawn.pixel(x: x, y: y))")
        }
        for (x, y, colour, what) in [
            (40 + 96, 180 + 720 * 85 / 100 + 36, Fixtures.green, "Alpha's green box"),
            (960 + 75 + 810 * 75 / 100, 1080 * 86 / 100, RGB(30, 60, 220), "Beta's blue box"),
            (480, 180 + 360, RGB(255, 255, 255), "Alpha's paper"),
            (960 + 75 + 405, 540, RGB(255, 255, 255), "Beta's paper"),
        ] {
            XCTAssertTrue(close(shot.pixel(x: x, y: y), colour), "the wall: \(what) is \(shot.pixel(x: x, y: y))")
            XCTAssertTrue(close(drawn.pixel(x: x, y: y), colour), "the record: \(what) is \(drawn.pixel(x: x, y: y))")
        }
        // Ann's ink across Alpha's page (y = 0.7 of it, x 0.2…0.8), in pane 0 only.
        XCTAssertTrue(close(shot.pixel(x: 480, y: inkY), ink), "the wall's ink: \(shot.pixel(x: 480, y: inkY))")
        XCTAssertTrue(close(drawn.pixel(x: 480, y: inkY), ink), "the record's ink: \(drawn.pixel(x: 480, y: inkY))")
        XCTAssertFalse(close(drawn.pixel(x: 960 + 75 + 405, y: inkY), ink), "no ink on Beta")
    }

    /// A clip playing in a pane is on the wall's record page as its first frame, fitted in
    /// its pane as the wall fits the clip (a 4:3 clip in a 960×1080 pane: 960×720 at y 180).
    func testAClipInAPaneIsItsPosterOnTheRecordPage() throws {
        let h = try ServiceHarness(floor: .open)
        let ann = try h.presenter("Ann")
        let ben = try h.presenter("Ben")
        let mod = try h.moderator()
        _ = try ann.requestFloor()
        try ann.present(try ann.upload(path: try MeetingRecordTests.deck("Alpha", pages: 1, in: h.dir)).content)
        XCTAssertEqual(try mod.request(.layoutSet(.split)), .ok)
        XCTAssertEqual(try mod.request(.paneSet(PaneRequest(pane: 1, .assign(ben.deviceID)))), .ok)
        let clip = try ben.upload(path: try Fixtures.halvesClip(in: h.dir)).content
        XCTAssertEqual(try ben.request(.clipPlay(content: clip, loop: true)), .clipPlayOK)
        let (data, pages) = try mod.meetingRecord()
        let pdf = try MeetingRecordTests.save(data, h.dir, "clip-record.pdf")
        let drawn = try Fixtures.pdftoppm(pdf, page: pages, width: 1920, height: 1080)
        XCTAssertTrue(close(drawn.pixel(x: 960 + 240, y: 540), RGB(255, 0, 0), 60), "the clip's red half: \(drawn.pixel(x: 1200, y: 540))")
        XCTAssertTrue(close(drawn.pixel(x: 960 + 720, y: 540), RGB(0, 0, 255), 60), "its blue half: \(drawn.pixel(x: 1680, y: 540))")
        XCTAssertTrue(close(drawn.pixel(x: 1440, y: 90), .black), "the bar above it")
        XCTAssertTrue(try MeetingRecordTests.text(pdf, page: pages).contains("Alpha page 1"), "the page beside it, as text")
    }

    func close(_ a: RGB, _ b: RGB, _ tolerance: Int = 40) -> Bool {
        abs(Int(a.r) - Int(b.r)) <= tolerance && abs(Int(a.g) - Int(b.g)) <= tolerance && abs(Int(a.b) - Int(b.b)) <= tolerance
    }
}
