import LecternModel
import LecternPipeline
import LecternRender
import LecternTestSupport
import XCTest

/// The wall's ink step on real frames with cairo: strokes stay inside the page box, a
/// stroke added to a kept composed frame gives exactly the pixels of composing all anew,
/// and an undo is not left behind.
final class InkOverlayTests: XCTestCase {
    let scene = Scene.page(content: "deck", page: 1)
    let key = InkOverlay.Key(content: "deck", page: 1)
    let rect = PixelRect(x: 160, y: 0, width: 960, height: 720)

    func stroke(_ id: UInt32, y: Double, color: Int = 0, tool: InkTool = .pen) -> InkStroke {
        InkStroke(
            id: id, author: 1, color: InkPalette.colors[color], tool: tool, width: .thick,
            points: [InkPoint(px: -0.2, py: y), InkPoint(px: 0.5, py: y + 0.05), InkPoint(px: 1.2, py: y)])
    }

    func compose(_ o: InkOverlay, _ base: Frame) -> Frame {
        let f = Frame(width: base.width, height: base.height)
        o.compose(scene, base: base, into: f, rect: rect)
        return f
    }

    func testIncrementalComposingEqualsComposingAnewAndUndoIsNotLeftBehind() {
        let base = Frame(width: 1280, height: 720, color: .white)
        base.fill(PixelRect(x: 0, y: 0, width: 160, height: 720), .black)
        let a = stroke(1, y: 0.3), b = stroke(2, y: 0.32, color: 1, tool: .highlighter), c = stroke(3, y: 0.6, color: 2)
        let kept = InkOverlay()
        kept.setLayer(InkLayer(strokes: [a, b]), for: key)
        _ = compose(kept, base)
        kept.setLayer(InkLayer(strokes: [a, b, c]), for: key)
        let incremental = compose(kept, base)
        let fresh = InkOverlay()
        fresh.setLayer(InkLayer(strokes: [a, b, c]), for: key)
        XCTAssertEqual(PixelCompare.differingPixels(incremental, compose(fresh, base)), 0)
        // clipped to the page: the bars are untouched although the strokes run past the edges
        XCTAssertTrue(incremental.isUniform(PixelRect(x: 0, y: 0, width: 160, height: 720), .black))
        XCTAssertTrue(incremental.isUniform(PixelRect(x: 1120, y: 0, width: 160, height: 720), .white))
        XCTAssertEqual(incremental.pixel(x: 640, y: Int(0.65 * 720)), InkPalette.colors[2])
        // an undo of the first stroke: composed anew, the stroke is gone
        kept.setLayer(InkLayer(strokes: [b, c]), for: key)
        let undone = compose(kept, base)
        let fresh2 = InkOverlay()
        fresh2.setLayer(InkLayer(strokes: [b, c]), for: key)
        XCTAssertEqual(PixelCompare.differingPixels(undone, compose(fresh2, base)), 0)
        XCTAssertNotEqual(PixelCompare.differingPixels(undone, incremental), 0)
        // the base frame (the page cache's) is never drawn into
        XCTAssertTrue(base.isUniform(PixelRect(x: 160, y: 0, width: 960, height: 720), .white))
    }
}
