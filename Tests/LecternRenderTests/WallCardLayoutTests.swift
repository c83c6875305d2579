import Foundation
import LecternModel
@testable import LecternRender
import LecternTestSupport
import XCTest

/// The wall's cards fit their text at 16:9 and 4:3 (issue 27, Why 8): a poll's counts are
/// never cut to "2 (…", long answers and a long title wrap inside their boxes, and an
/// audience question fills its card instead of one cut line at the top. The same drawing
/// makes the meeting record's card pages (960×540).
final class WallCardLayoutTests: XCTestCase {
    /// 16:9, 4:3, and the meeting record's card page (960×540 points, the same drawing).
    static let sizes = [(1920, 1080), (1024, 768), (960, 540)]

    /// The longest a poll allows: a 300-byte question, six 100-byte answers (§24.3).
    static let longPoll = WallCard(
        title: String(repeating: "Which of these plans should the committee adopt for the spring term? ", count: 5).prefix(300).description,
        bars: (0..<6).map { i in
            WallCard.Bar(
                label: String(repeating: "Option \(i + 1): move the weekly review to Thursday afternoons ", count: 2).prefix(100).description,
                count: [12, 3, 0, 7, 100, 1][i], highlighted: i == 4)
        })

    static let longQuestion = WallCard(
        title: "Question from the audience",
        lines: [String(repeating: "How will the new schedule affect teams in other time zones who join remotely? ", count: 4).prefix(300).description])

    func assertFits(_ placed: [WallCardText.Placed], in panel: PixelRect, height: Int, file: StaticString = #filePath, line: UInt = #line) {
        for t in placed {
            let what = "\"\(t.text.prefix(30))…\" at \(t.size) px in \(t.box)"
            XCTAssertFalse(t.cut, "cut: \(what)", file: file, line: line)
            XCTAssertGreaterThanOrEqual(t.size, Double(height) / 64 - 0.01, "too small: \(what)", file: file, line: line)
            XCTAssertTrue(
                t.drawn.x >= t.box.x - 1 && t.drawn.maxX <= t.box.maxX + 1 && t.drawn.y >= t.box.y - 1 && t.drawn.maxY <= t.box.maxY + 1,
                "outside its box: \(what), drawn \(t.drawn)", file: file, line: line)
            XCTAssertTrue(
                t.box.x >= panel.x && t.box.maxX <= panel.maxX && t.box.y >= panel.y && t.box.maxY <= panel.maxY,
                "box outside the panel \(panel): \(what)", file: file, line: line)
        }
        for (i, a) in placed.enumerated() {
            for b in placed[(i + 1)...] {
                let overlap = a.drawn.x < b.drawn.maxX && b.drawn.x < a.drawn.maxX && a.drawn.y < b.drawn.maxY && b.drawn.y < a.drawn.maxY
                XCTAssertFalse(overlap, "\"\(a.text.prefix(20))\" \(a.drawn) overlaps \"\(b.text.prefix(20))\" \(b.drawn)", file: file, line: line)
            }
        }
    }

    func testAPollsCountsAndLongAnswersFitAt16By9And4By3() throws {
        for (w, h) in Self.sizes {
            let f = Frame(width: w, height: h, color: .black)
            let placed = WallCardDrawing.draw(Self.longPoll, into: f)
            let panel = WallCardDrawing.panelRect(width: w, height: h, overscanPercent: 0)
            XCTAssertEqual(placed.count, 1 + 2 * 6, "\(w)×\(h): the title, then a label and a count per bar")
            assertFits(placed, in: panel, height: h)
            let counts = stride(from: 2, to: placed.count, by: 2).map { placed[$0].text }
            XCTAssertEqual(counts, ["12 (9 %)", "3 (2 %)", "0 (0 %)", "7 (5 %)", "100 (81 %)", "1 (0 %)"])
            // Each count is on its bar's row, right of the longest bar, and readable.
            let tracks = WallCardDrawing.tracks(n: 6, width: w, height: h)
            for (i, t) in tracks.enumerated() {
                let count = placed[2 + 2 * i]
                XCTAssertGreaterThanOrEqual(count.drawn.x, t.maxX, "\(w)×\(h): count \(i) on its bar")
                XCTAssertGreaterThanOrEqual(count.size, Double(t.height) * 0.35, "\(w)×\(h): count \(i) shrunk to \(count.size) px")
            }
            try? PNG.write(f, to: Repository.path(".build/test-output/card-poll-\(w)x\(h).png"))
        }
    }

    func testAShortPollKeepsItsLargeText() throws {
        let card = WallCard(title: "Lunch?", bars: [.init(label: "Yes", count: 2), .init(label: "No", count: 3)])
        let placed = WallCardDrawing.draw(card, into: Frame(width: 1920, height: 1080, color: .black))
        XCTAssertEqual(placed.map(\.text), ["Lunch?", "A  Yes", "2 (40 %)", "B  No", "3 (60 %)"])
        XCTAssertEqual(placed[0].size, 1080.0 / 20, accuracy: 0.01, "the title at its full size")
        XCTAssertEqual(placed[2].size, 1080.0 / 22, accuracy: 0.01, "the count at its full size, not shrunk")
        assertFits(placed, in: WallCardDrawing.panelRect(width: 1920, height: 1080, overscanPercent: 0), height: 1080)
    }

    /// A 300-byte question fills its card: wrapped, as large as fits, not one cut line.
    func testALongQuestionFillsItsCard() throws {
        for (w, h) in Self.sizes {
            let f = Frame(width: w, height: h, color: .black)
            let placed = WallCardDrawing.draw(Self.longQuestion, into: f)
            let panel = WallCardDrawing.panelRect(width: w, height: h, overscanPercent: 0)
            XCTAssertEqual(placed.count, 2)
            assertFits(placed, in: panel, height: h)
            let q = placed[1]
            XCTAssertEqual(q.text, Self.longQuestion.lines[0])
            XCTAssertGreaterThan(q.drawn.height, panel.height / 3, "\(w)×\(h): the question takes \(q.drawn.height) of \(panel.height) px")
            XCTAssertGreaterThanOrEqual(q.size, Double(h) / 30, "\(w)×\(h): the question is small (\(q.size) px)")
            // And on the pixels: ink on rows spread over the card, not one line.
            var inked = 0
            for y in panel.y..<panel.maxY {
                if stride(from: panel.x, to: panel.maxX, by: 2).contains(where: { f.pixel(x: $0, y: y).r < 100 }) { inked += 1 }
            }
            XCTAssertGreaterThan(inked, panel.height / 4, "\(w)×\(h): ink on \(inked) of \(panel.height) rows")
            try? PNG.write(f, to: Repository.path(".build/test-output/card-question-\(w)x\(h).png"))
        }
    }
}
