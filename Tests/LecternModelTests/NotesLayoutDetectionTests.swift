import LecternModel
import XCTest

/// When a deck is taken for beamer's "notes on second screen" (docs/protocol.md §20.3):
/// only on real evidence (beamer's own mark), never for the page's width alone.
final class NotesLayoutDetectionTests: XCTestCase {
    typealias E = NotesLayout.Evidence
    static let mark = E(beamerMark: true)
    static let nothing = E()

    func testTheRuleAsATable() {
        let mm = 72 / 25.4   // beamer's paper is given in millimetres
        let rows: [(String, [SourceShape], E, NotesLayout)] = [
            // beamer's own sizes, notes on the second screen: twice the slide's width.
            ("4:3 beamer", [SourceShape(width: 256 * mm, height: 96 * mm)], Self.mark, .right),
            ("16:9 beamer", [SourceShape(width: 320 * mm, height: 90 * mm)], Self.mark, .right),
            ("16:10 beamer", [SourceShape(width: 320 * mm, height: 100 * mm)], Self.mark, .right),
            ("5:4 beamer: 2.5:1", [SourceShape(width: 250, height: 100), SourceShape(width: 250, height: 100)], Self.mark, .right),
            ("the test decks: 2 × 640×480", [SourceShape(width: 1280, height: 480)], Self.mark, .right),
            // Wide but no evidence: shown whole.
            ("2 × 4:3 without beamer's mark", [SourceShape(width: 1280, height: 480)], Self.nothing, .none),
            ("32:9 without beamer's mark", [SourceShape(width: 3200, height: 900)], Self.nothing, .none),
            ("a 4:1 banner", [SourceShape(width: 1200, height: 300)], Self.nothing, .none),
            ("a 6.4:1 panorama", [SourceShape(width: 1920, height: 300)], Self.nothing, .none),
            // Never split, whatever the evidence.
            ("a 16:9 slide, made by beamer", [SourceShape(width: 960, height: 540)], Self.mark, .none),
            ("just under 2.4:1, made by beamer", [SourceShape(width: 1199, height: 500)], Self.mark, .none),
            ("a beamer deck and one ordinary page", [SourceShape(width: 1280, height: 480), SourceShape(width: 720, height: 540)], Self.mark, .none),
            ("tall pages: switched by hand", [SourceShape(width: 595, height: 1684)], Self.mark, .none),
            ("no pages", [], Self.mark, .none),
            ("a page of no height", [SourceShape(width: 100, height: 0)], Self.mark, .none),
        ]
        for (name, shapes, evidence, expected) in rows {
            XCTAssertEqual(NotesLayout.detect(shapes, evidence: evidence), expected, name)
        }
    }
}
