import Foundation
import LecternCore
import LecternProtocol
import XCTest

@testable import LecternRoom

/// The meeting record's core (§26): order, deduplication, polls and clips between pages,
/// bounds, saving.
final class MeetingRecordCoreTests: XCTestCase {
    let ink = [InkStroke(id: 1, author: 1, color: RGB(200, 0, 0), tool: .pen, width: .thick, points: [InkPoint(px: 0.1, py: 0.1), InkPoint(px: 0.9, py: 0.9)])]

    func pages(_ r: MeetingRecord, wall: [InkStroke] = []) -> [String] {
        r.pages(wallStrokes: wall).map { e in
            switch e.item {
            case .page(_, let name, let page, _, let strokes): "\(name)\(page)\(strokes.isEmpty ? "" : "+ink")"
            case .poll(let card): "poll \(card.bars.map(\.count))"
            case .clip(_, let name, _): "clip \(name)"
            }
        }
    }

    func show(_ r: inout MeetingRecord, _ deck: String, _ page: Int, leaving: [InkStroke] = [], by who: String = "Ann") {
        r.pageShown(content: deck, name: deck, page: page, part: .whole, presenter: who, at: Double(page), leavingStrokes: leaving)
    }

    func testPagesInOrderAPageShownAgainUnchangedOnceAndAgainWithNewInk() {
        var r = MeetingRecord()
        XCTAssertTrue(r.isEmpty)
        show(&r, "A", 1)
        show(&r, "A", 2)
        show(&r, "A", 1)   // A2 leaves without ink
        show(&r, "A", 1)   // the same page: no change
        show(&r, "B", 1)   // A1 again unchanged: not kept twice
        XCTAssertEqual(pages(r), ["A1", "A2", "B1"])
        show(&r, "A", 2, leaving: [])
        show(&r, "B", 1, leaving: ink)   // A2 with ink this time: a new page
        XCTAssertEqual(pages(r), ["A1", "A2", "B1", "A2+ink"])
        XCTAssertEqual(pages(r, wall: ink), ["A1", "A2", "B1", "A2+ink", "B1+ink"], "the page on the wall with its ink now")
        XCTAssertEqual(r.count(wallStrokes: []), 4)
        XCTAssertEqual(r.count(wallStrokes: ink), 5)
    }

    func testAPollKeepsItsLastCountsAndClipsComeInOrder() {
        var r = MeetingRecord()
        show(&r, "A", 1)
        r.pageLeft(strokes: [])
        r.pollShown(WallCard(title: "Q", bars: [.init(label: "Yes", count: 1), .init(label: "No", count: 0)]), presenter: "Ann", at: 5)
        r.pollShown(WallCard(title: "Q", bars: [.init(label: "Yes", count: 4), .init(label: "No", count: 2)]), presenter: "Ann", at: 6)
        r.clipPlayed(content: "C", name: "intro.mp4", duration: 12, presenter: "Bo", at: 7)
        show(&r, "A", 2, by: "Bo")
        XCTAssertEqual(pages(r), ["A1", "poll [4, 2]", "clip intro.mp4", "A2"])
        let who = MeetingRecord.presenters(of: r.pages(wallStrokes: []))
        XCTAssertEqual(who.map(\.name), ["Ann", "Bo"])
        XCTAssertEqual(who[0].shown, ["A", "Poll: Q"])
        XCTAssertEqual(who[1].shown, ["intro.mp4", "A"])
        XCTAssertEqual(r.startedAt, 1)
    }

    func testBoundedAndSavedAndCleared() throws {
        var r = MeetingRecord()
        for n in 1...(MeetingRecord.maxEntries + 5) { show(&r, "D", n) }
        show(&r, "E", 1)
        XCTAssertEqual(r.entries.count, MeetingRecord.maxEntries)
        XCTAssertEqual(r.dropped, 5)
        let back = try JSONDecoder().decode(MeetingRecord.self, from: JSONEncoder().encode(r))
        XCTAssertEqual(back, r)
        r.clear()
        XCTAssertTrue(r.isEmpty)
        XCTAssertNil(r.startedAt)
    }
}
