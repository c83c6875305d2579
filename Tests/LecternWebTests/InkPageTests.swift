import Foundation
import LecternClient
import LecternCore
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// Pointing and drawing on the live picture in a real headless Chromium (touch input through
/// WebDriver actions), landing on the service's output where the page is.
final class InkPageTests: XCTestCase {
    /// The client position on the picture of page coordinates (x, y), computed in the page.
    func clientPoint(_ b: WebSession, _ x: Double, _ y: Double) throws -> (Int, Int) {
        let r =
            try b.execute(
                """
                const img = document.getElementById('preview-img'), box = window.Lectern.app.state.ink.box;
                const r = img.getBoundingClientRect();
                const s = Math.min(r.width / img.naturalWidth, r.height / img.naturalHeight);
                const w = img.naturalWidth * s, h = img.naturalHeight * s;
                const left = r.left + (r.width - w) / 2, top = r.top + (r.height - h) / 2;
                return [Math.round(left + (box.x + arguments[0] * box.width) * w), Math.round(top + (box.y + arguments[1] * box.height) * h)];
                """, [x, y]) as? [Any]
        let xy = try XCTUnwrap(r?.compactMap { ($0 as? NSNumber)?.intValue })
        return (xy[0], xy[1])
    }

    /// A finger put down at `from` and moved to `to` (kept down unless `lift`).
    func drag(_ b: WebSession, from: (Int, Int), to: (Int, Int), lift: Bool) throws {
        var actions: [[String: Any]] = [
            ["type": "pointerMove", "duration": 0, "x": from.0, "y": from.1, "origin": "viewport"],
            ["type": "pointerDown", "button": 0],
        ]
        for i in 1...8 {
            let t = Double(i) / 8
            actions.append([
                "type": "pointerMove", "duration": 40, "origin": "viewport",
                "x": Int(Double(from.0) + t * Double(to.0 - from.0)), "y": Int(Double(from.1) + t * Double(to.1 - from.1)),
            ])
        }
        if lift { actions.append(["type": "pointerUp", "button": 0]) }
        try b.call("POST", "/actions", ["actions": [["type": "pointer", "id": "finger", "parameters": ["pointerType": "touch"], "actions": actions]]])
    }

    func testAFingerPointsAndDrawsOnThePreviewAndItLandsOnTheWall() throws {
        let h = try ServiceHarness.web(floor: .moderated)
        let pdf = try Fixtures.pdf([Fixtures.quadrantPage(width: 800, height: 600)], in: h.dir)
        let mod = try h.moderator("Desk")
        let stored = try mod.upload(path: pdf)
        try mod.present(stored.content)
        let b = try h.browser(width: 412, height: 915)   // a phone
        try h.joinAndWait(b, name: "Ana's phone", role: .moderator)
        try b.poll("the picture and the page box") {
            try b.execute("const i = document.getElementById('preview-img'); return !i.hidden && i.naturalWidth > 0 && !!window.Lectern.app.state.ink.box") as? Bool == true
        }
        let stage = try XCTUnwrap(h.service.stage)
        _ = try b.execute("document.getElementById('preview').scrollIntoView({ block: 'center' })")

        // The pointer tool: a drag ending at (0.25, 0.5) of the page puts the dot there
        // (4:3 on 1920×1080: the page is 1440×1080 at x = 240).
        try b.click("#ink-bar [data-ink-tool=pointer]")
        try drag(b, from: try clientPoint(b, 0.6, 0.3), to: try clientPoint(b, 0.25, 0.5), lift: false)
        let dot = (x: 240 + 360, y: 540)
        // The phone's picture is about 400 px wide for 1920: a pixel of it is ~5 on the wall.
        try eventually("the dot near (0.25, 0.5) of the page on the wall") {
            let f = stage.screenshot()
            return (-8...8).contains { dx in (-8...8).contains { dy in f.pixel(x: dot.x + dx, y: dot.y + dy) == InkPalette.pointer } }
                && f.pixel(x: dot.x - 60, y: dot.y) != InkPalette.pointer
        }
        try b.call("DELETE", "/actions")
        let plain = try h.expectedFrame(pdf: pdf, page: 1)
        try eventually("the dot faded after the lift") { PixelCompare.differingPixels(stage.screenshot(), plain) == 0 }

        // The pen: a finger stroke across the middle appears on the wall in the drawer's colour.
        try b.click("#ink-bar [data-ink-tool=pen]")
        try drag(b, from: try clientPoint(b, 0.2, 0.5), to: try clientPoint(b, 0.8, 0.5), lift: true)
        let color = InkPalette.drawerColor(slot: 0)
        try eventually("the stroke along the middle of the page") {
            let f = stage.screenshot()
            return [0.3, 0.5, 0.7].allSatisfy { px in
                (-6...6).contains { dy in f.pixel(x: 240 + Int(px * 1440), y: 540 + dy) == color }
            }
        }
        XCTAssertEqual(try mod.waitForState { $0.ink?.strokes == 1 }.ink?.pages.first?.strokes, 1)
        // Swipe is back: no ink from a swipe.
        try b.click("#ink-bar [data-ink-tool=swipe]")
        try b.click("#ink-undo")
        try eventually("undone") { PixelCompare.differingPixels(stage.screenshot(), plain) == 0 }
    }
}
