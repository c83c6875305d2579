import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternService
import LecternTestSupport
import XCTest

/// Ink in a pane (issue 26, docs/protocol.md §9.7): in a split, the presenter who drives pane
/// 1 draws on their own page; the stroke lands on the wall inside pane 1, over that page, and
/// pane 0 (another presenter's page) is untouched. Real sockets (TLS, as shipped), poppler's
/// pages on the virtual display, checked pixel by pixel.
final class PaneInkOverTCPTests: XCTestCase {
    func testAStrokeFromThePresenterDrivingPaneOneLandsInThatPaneOnly() throws {
        let h = try ServiceHarness(floor: .open)
        let dir = Fixtures.tempDir("pane-ink")
        let ana = try h.presenter("Ana")
        _ = try ana.requestFloor()
        let ben = try h.presenter("Ben")
        let chair = try h.moderator("Chair")
        _ = try chair.request(.layoutSet(.split))
        _ = try chair.request(.paneSet(PaneRequest(pane: 1, .assign(try XCTUnwrap(ben.registration?.deviceID)))))
        try ana.present(try ana.upload(path: try Fixtures.numberedDeck(count: 2, in: dir)).content)
        // Ben's page is 4:3: in pane 1 (960×1080 at x 960) it is 960×720 at y 180.
        let benPDF = try Fixtures.pdf([Fixtures.quadrantPage(width: 800, height: 600)], in: Fixtures.tempDir("pane-ink-ben"))
        let benDeck = try ben.upload(path: benPDF).content
        try ben.present(benDeck)
        let box = InkSnapshot.Box(x: 0.5, y: 180.0 / 1080, width: 0.5, height: 720.0 / 1080)
        let benBox = try XCTUnwrap(ben.waitForState { $0.ink?.box != nil && $0.screen.content != nil }.ink?.box)
        XCTAssertEqual(benBox.x, box.x, accuracy: 1e-6)
        XCTAssertEqual(benBox.y, box.y, accuracy: 1e-6)
        XCTAssertEqual(benBox.width, box.width, accuracy: 1e-6)
        XCTAssertEqual(benBox.height, box.height, accuracy: 1e-6)
        let anaBox = try XCTUnwrap(ana.waitForState { $0.ink?.box != nil }.ink?.box)
        XCTAssertLessThanOrEqual(anaBox.x + anaBox.width, 0.5 + 1e-9, "Ana's page is in pane 0")
        let before = h.service.stage.screenshot()

        let ink = try XCTUnwrap(InkPalette.color(index: 2))   // blue
        try ben.draw([InkPoint(px: 0.2, py: 0.5), InkPoint(px: 0.8, py: 0.5)], width: .thick, colorIndex: 2)
        // Page (0.3, 0.5) and (0.7, 0.5) in pane 1: x 960 + 0.3·960 = 1248 and 1632, y 180 + 360.
        try eventually("Ben's stroke in pane 1", timeout: 5, interval: 0.05) {
            let f = h.service.stage.screenshot()
            return [1248, 1440, 1632].allSatisfy { ShareOverTCPTests.isColour(f.pixel(x: $0, y: 540), r: Int(ink.r), g: Int(ink.g), b: Int(ink.b)) }
        }
        let after = h.service.stage.screenshot()
        let changed = InkOverTCPTests.changed(before, after)
        XCTAssertGreaterThan(changed.count, 0)
        XCTAssertEqual(changed.filter { $0.x < 960 }.count, 0, "pane 0 untouched: \(changed.filter { $0.x < 960 }.prefix(5))")
        XCTAssertEqual(try ben.state().ink?.strokes, 1)
        XCTAssertEqual(try ana.state().ink?.pages.map(\.content), [benDeck.hex], "the one page with ink is Ben's")

        // Ana, on the main pane, draws too: her stroke is on her page in pane 0.
        let red = try XCTUnwrap(InkPalette.color(index: 1))
        try ana.draw([InkPoint(px: 0.1, py: 0.3), InkPoint(px: 0.9, py: 0.3)], width: .thick, colorIndex: 1)
        let a = anaBox
        let anaY = Int((a.y + 0.3 * a.height) * 1080), anaX = Int((a.x + 0.5 * a.width) * 1920)
        try eventually("Ana's stroke in pane 0", timeout: 5, interval: 0.05) {
            ShareOverTCPTests.isColour(h.service.stage.screenshot().pixel(x: anaX, y: anaY), r: Int(red.r), g: Int(red.g), b: Int(red.b))
        }
        XCTAssertEqual(try ana.state().ink?.strokes, 2)
        // Ben's undo takes back his stroke on his page only.
        _ = try ben.request(.ink(.undo))
        try eventually("Ben's stroke gone, Ana's kept", timeout: 5, interval: 0.05) {
            let f = h.service.stage.screenshot()
            return !ShareOverTCPTests.isColour(f.pixel(x: 1440, y: 540), r: Int(ink.r), g: Int(ink.g), b: Int(ink.b))
                && ShareOverTCPTests.isColour(f.pixel(x: anaX, y: anaY), r: Int(red.r), g: Int(red.g), b: Int(red.b))
        }
    }
}
