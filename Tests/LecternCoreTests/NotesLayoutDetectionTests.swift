import LecternCore
import XCTest

/// When a deck is taken for beamer's "notes on second screen" (docs/protocol.md §20.3):
/// only on real evidence, never for the page's width alone.
final class NotesLayoutDetectionTests: XCTestCase {
    typealias E = NotesLayout.Evidence
    static let mark = E(beamerMark: true)
    static let text = E(textOnRight: true)
    static let nothing = E()

    func testTheRuleAsATable() {
        let mm = 72 / 25.4   // beamer's paper is given in millimetres
        let rows: [(String, [SourceShape], E, NotesLayout)] = [
            // beamer's own sizes, notes on the second screen: twice the slide's width.
            ("4:3 beamer, text on the notes half", [SourceShape(width: 256 * mm, height: 96 * mm)], Self.text, .right),
            ("16:9 beamer, text on the notes half", [SourceShape(width: 320 * mm, height: 90 * mm)], Self.text, .right),
            ("16:10 beamer, text on the notes half", [SourceShape(width: 320 * mm, height: 100 * mm)], Self.text, .right),
            (
                "14:9, 5:4, 3:2, 1.41",
                [SourceShape(width: 280, height: 90), SourceShape(width: 250, height: 100), SourceShape(width: 300, height: 100), SourceShape(width: 282, height: 100)], Self.text,
                .right
            ),
            ("the test decks: 2 × 640×480", [SourceShape(width: 1280, height: 480)], Self.text, .right),
            ("within 1 %", [SourceShape(width: 1280 * 1.009, height: 480)], Self.text, .right),
            ("beamer's mark, any wide shape", [SourceShape(width: 1000, height: 400)], Self.mark, .right),
            // Wide but no evidence: shown whole.
            ("a slide-shaped pair without text on the right", [SourceShape(width: 1280, height: 480)], Self.nothing, .none),
            ("past 1 %", [SourceShape(width: 1280 * 1.02, height: 480)], Self.text, .none),
            ("a 4:1 banner with text", [SourceShape(width: 1200, height: 300)], Self.text, .none),
            ("a 6.4:1 panorama with text", [SourceShape(width: 1920, height: 300)], Self.text, .none),
            ("2.4:1 (the old threshold) with text", [SourceShape(width: 1200, height: 500)], Self.text, .none),
            ("one page of another shape", [SourceShape(width: 1280, height: 480), SourceShape(width: 1200, height: 300)], Self.text, .none),
            // Never split, whatever the evidence.
            ("a 16:9 slide, made by beamer", [SourceShape(width: 960, height: 540)], Self.mark, .none),
            ("a beamer deck and one ordinary page", [SourceShape(width: 1280, height: 480), SourceShape(width: 720, height: 540)], Self.mark, .none),
            ("tall pages: switched by hand", [SourceShape(width: 595, height: 1684)], E(beamerMark: true, textOnRight: true), .none),
            ("no pages", [], Self.mark, .none),
            ("a page of no height", [SourceShape(width: 100, height: 0)], Self.mark, .none),
        ]
        for (name, shapes, evidence, expected) in rows {
            XCTAssertEqual(NotesLayout.detect(shapes, evidence: evidence), expected, name)
        }
    }

    func testHalvesOfTheUsualSlideShapes() {
        for ratio in NotesLayout.slideShapes {
            XCTAssertTrue(NotesLayout.halfIsSlide(SourceShape(width: 2 * ratio * 300, height: 300)), "\(ratio)")
        }
        XCTAssertFalse(NotesLayout.halfIsSlide(SourceShape(width: 1200, height: 300)), "a 4:1 page has 2:1 halves")
        XCTAssertFalse(NotesLayout.halfIsSlide(SourceShape(width: 1920, height: 300)), "a 6.4:1 page has 3.2:1 halves")
        XCTAssertFalse(NotesLayout.halfIsSlide(SourceShape(width: 100, height: 0)))
    }
}
