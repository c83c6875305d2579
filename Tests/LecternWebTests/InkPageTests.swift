import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// Pointing and drawing on the live picture in a real headless Chromium (touch input through
/// WebDriver actions), landing on the service's output where the page is.
final class InkPageTests: XCTestCase {
    /// The client position on the picture of page coordinates (x, y), computed in the page
    /// once the picture is loaded (it is fetched again when the ink changes: for a moment it
    /// has no size, and the position would be NaN).
    func clientPoint(_ b: WebSession, _ x: Double, _ y: Double) throws -> (Int, Int) {
        var xy: [Int] = []
        try b.poll("the picture loaded, to place (\(x), \(y)) on it") {
            let r =
                try b.execute(
                    """
                    const img = document.getElementById('preview-img'), box = window.Lectern.app.state.ink.box;
                    if (!box || !img.complete || !img.naturalWidth) return null;
                    const r = img.getBoundingClientRect();
                    const s = Math.min(r.width / img.naturalWidth, r.height / img.naturalHeight);
                    const w = img.naturalWidth * s, h = img.naturalHeight * s;
                    const left = r.left + (r.width - w) / 2, top = r.top + (r.height - h) / 2;
                    return [Math.round(left + (box.x + arguments[0] * box.width) * w), Math.round(top + (box.y + arguments[1] * box.height) * h)];
                    """, [x, y]) as? [Any]
            xy = r?.compactMap { ($0 as? NSNumber)?.intValue } ?? []
            return xy.count == 2
        }
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

    /// A phone that drives pane 1 of a split (§9.7) draws with its finger on its live picture
    /// (the whole wall): its `ink.box` is its pane's page, so the stroke lands on that page in
    /// pane 1, and the main pane is untouched.
    func testAPhoneThatDrivesAPaneDrawsOnThatPanesPage() throws {
        let h = try ServiceHarness.web(floor: .moderated)
        let mod = try h.moderator("Desk")
        let main = try mod.upload(path: try Fixtures.numberedDeck(count: 2, in: h.dir))
        try mod.present(main.content)
        let b = try h.browser(width: 412, height: 915)   // a phone
        try h.joinAndWait(b, name: "Ben's phone")
        let ben = try XCTUnwrap(h.device(named: "Ben's phone")).id
        let pdf = try Fixtures.pdf([Fixtures.quadrantPage(width: 800, height: 600)], in: Fixtures.tempDir("pane-ink-web"))
        let quadrants = try mod.upload(path: pdf)
        _ = try mod.request(.layoutSet(.split))
        _ = try mod.request(.paneSet(PaneRequest(pane: 1, .assign(ben))))
        _ = try mod.request(.paneSet(PaneRequest(pane: 1, .present(content: quadrants.content, page: 1))))
        // 4:3 in pane 1 (960×1080 at x 960): 960×720 at y 180.
        try b.poll("the picture and pane 1's page box") {
            try b.execute(
                "const i = document.getElementById('preview-img'), box = window.Lectern.app.state.ink.box; return !i.hidden && i.naturalWidth > 0 && !!box && box.x === 0.5"
            ) as? Bool == true
        }
        let stage = try XCTUnwrap(h.service.stage)
        let before = stage.screenshot()
        _ = try b.execute("document.getElementById('preview').scrollIntoView({ block: 'center' })")
        try b.click("#ink-bar [data-ink-tool=pen]")
        try drag(b, from: try clientPoint(b, 0.2, 0.5), to: try clientPoint(b, 0.8, 0.5), lift: true)
        let color = InkPalette.drawerColor(slot: 0)
        try eventually("the stroke along the middle of pane 1's page") {
            let f = stage.screenshot()
            return [0.3, 0.5, 0.7].allSatisfy { px in (-8...8).contains { dy in f.pixel(x: 960 + Int(px * 960), y: 540 + dy) == color } }
        }
        let after = stage.screenshot()
        var changedLeft = 0
        for y in 0..<1080 { for x in 0..<960 where before.pixel(x: x, y: y) != after.pixel(x: x, y: y) { changedLeft += 1 } }
        XCTAssertEqual(changedLeft, 0, "the main pane untouched")
        XCTAssertEqual(try mod.waitForState { $0.ink?.strokes == 1 }.ink?.pages.map(\.content), [quadrants.content.hex])
    }

    /// The live picture is fetched again whenever anyone's ink or the page changes, and while
    /// the browser decodes the new one it has no size for it: a finger going down or moving
    /// then still lands where it is (the last picture's size), the stroke whole. Here the
    /// picture is made to load again every 5 ms through the whole stroke (the same picture
    /// under a new address); before, the stroke was lost or kept only its ends.
    func testAStrokeDrawnWhileThePictureLoadsAgainLandsWhole() throws {
        let h = try ServiceHarness.web(floor: .moderated)
        let pdf = try Fixtures.pdf([Fixtures.quadrantPage(width: 800, height: 600)], in: h.dir)
        let mod = try h.moderator("Desk")
        try mod.present(try mod.upload(path: pdf).content)
        let b = try h.browser(width: 390, height: 844)
        try h.joinAndWait(b, name: "Ben's phone", role: .moderator)
        try b.poll("the picture and the page box") {
            try b.execute("const i = document.getElementById('preview-img'); return !i.hidden && i.naturalWidth > 0 && !!window.Lectern.app.state.ink.box") as? Bool == true
        }
        let stage = try XCTUnwrap(h.service.stage)
        try b.click("#ink-bar [data-ink-tool=pen]")
        let from = try clientPoint(b, 0.2, 0.7), to = try clientPoint(b, 0.8, 0.7)
        _ = try b.execute(
            "const i = document.getElementById('preview-img'), u = i.src; let n = 0; window.reloading = setInterval(() => { i.src = u + '#' + n++; }, 5); return 1")
        try drag(b, from: from, to: to, lift: true)
        _ = try b.execute("clearInterval(window.reloading); return 1")
        let state = try mod.waitForState { $0.ink?.strokes == 1 }
        XCTAssertGreaterThanOrEqual(state.ink?.points ?? 0, 9, "the finger's down and its eight moves")
        let color = InkPalette.drawerColor(slot: 0)
        try eventually("the stroke along 0.7 of the page") {
            let f = stage.screenshot()
            return [0.3, 0.5, 0.7].allSatisfy { px in (-6...6).contains { dy in f.pixel(x: 240 + Int(px * 1440), y: 756 + dy) == color } }
        }
    }

    /// The page's colours on a browser's live picture at page coordinates, each as the
    /// RGB values of a short vertical run of picture pixels there (strokes are thin once scaled).
    func pictureColumns(_ b: WebSession, _ points: [(Double, Double)]) throws -> [[[Int]]] {
        let r =
            try b.execute(
                """
                const img = document.getElementById('preview-img'), box = window.Lectern.app.state.ink.box;
                const c = document.createElement('canvas');
                c.width = img.naturalWidth; c.height = img.naturalHeight;
                const g = c.getContext('2d');
                g.drawImage(img, 0, 0);
                return arguments[0].map(([x, y]) => {
                  const px = Math.round((box.x + x * box.width) * img.naturalWidth), py = Math.round((box.y + y * box.height) * img.naturalHeight);
                  const run = [];
                  for (let dy = -4; dy <= 4; dy++) run.push(Array.from(g.getImageData(px, py + dy, 1, 1).data).slice(0, 3));
                  return run;
                });
                """, [points.map { [$0.0, $0.1] }]) as? [[[Any]]]
        return try XCTUnwrap(r).map { run in run.map { px in px.compactMap { ($0 as? NSNumber)?.intValue } } }
    }

    /// Issue 16's "done when": two phones point and draw on the same slide, and a third device
    /// joining later sees all of it on its live picture.
    func testTwoPhonesDrawOnTheSameSlideAndALateJoinerSeesIt() throws {
        let h = try ServiceHarness.web(floor: .moderated)
        let pdf = try Fixtures.pdf([Fixtures.quadrantPage(width: 800, height: 600)], in: h.dir)
        let mod = try h.moderator("Desk")
        let stored = try mod.upload(path: pdf)
        try mod.present(stored.content)
        let stage = try XCTUnwrap(h.service.stage)
        let ana = try h.browser(width: 412, height: 915)
        try h.joinAndWait(ana, name: "Ana's phone", role: .moderator)
        let ben = try h.browser(width: 390, height: 844)
        try h.joinAndWait(ben, name: "Ben's phone", role: .moderator)
        for phone in [ana, ben] {
            try phone.poll("the picture and the page box") {
                try phone.execute("const i = document.getElementById('preview-img'); return !i.hidden && i.naturalWidth > 0 && !!window.Lectern.app.state.ink.box") as? Bool == true
            }
            _ = try phone.execute("document.getElementById('preview').scrollIntoView({ block: 'center' })")
            try phone.click("#ink-bar [data-ink-tool=pen]")
        }
        // 4:3 on 1920×1080: the page is 1440×1080 at x = 240.
        func onRow(_ f: Frame, _ py: Double, _ color: RGB) -> Bool {
            [0.3, 0.5, 0.7].allSatisfy { px in (-6...6).contains { dy in f.pixel(x: 240 + Int(px * 1440), y: Int(py * 1080) + dy) == color } }
        }
        let anaColor = InkPalette.drawerColor(slot: 0), benColor = InkPalette.drawerColor(slot: 1)
        try drag(ana, from: try clientPoint(ana, 0.2, 0.3), to: try clientPoint(ana, 0.8, 0.3), lift: true)
        try eventually("Ana's stroke on the wall in her colour") { onRow(stage.screenshot(), 0.3, anaColor) }
        try drag(ben, from: try clientPoint(ben, 0.2, 0.7), to: try clientPoint(ben, 0.8, 0.7), lift: true)
        do {
            try eventually("Ben's stroke on the wall in his colour, Ana's still there") {
                let f = stage.screenshot()
                return onRow(f, 0.7, benColor) && onRow(f, 0.3, anaColor) && !onRow(f, 0.5, anaColor) && !onRow(f, 0.5, benColor)
            }
        } catch {
            // What the room and Ben's page hold, for the log: whether the stroke reached the room.
            let page = try? ben.execute(
                "const a = window.Lectern.app; return JSON.stringify({ ink: a.state.ink, toast: document.getElementById('toast').textContent, tool: window.Lectern.ink.state.tool, gesture: !!window.Lectern.ink.state.gesture })"
            )
            XCTFail("room ink: \(String(describing: try? mod.state().ink)); Ben's page: \(String(describing: page))")
            throw error
        }
        XCTAssertEqual(try mod.waitForState { $0.ink?.strokes == 2 }.ink?.drawers.count, 2)

        // Ben points while both strokes stay: the dot at the middle of the page.
        try ben.click("#ink-bar [data-ink-tool=pointer]")
        try drag(ben, from: try clientPoint(ben, 0.6, 0.6), to: try clientPoint(ben, 0.5, 0.5), lift: false)
        try eventually("Ben's pointer near the middle of the page") {
            let f = stage.screenshot()
            return (-8...8).contains { dx in (-8...8).contains { dy in f.pixel(x: 960 + dx, y: 540 + dy) == InkPalette.pointer } }
                && onRow(f, 0.3, anaColor) && onRow(f, 0.7, benColor)
        }
        try ben.call("DELETE", "/actions")

        // A third phone joins later: its live picture holds both strokes.
        let cleo = try h.browser(width: 360, height: 640)
        try h.joinAndWait(cleo, name: "Cleo's phone", role: .moderator)
        XCTAssertEqual(try mod.state().ink?.strokes, 2)
        // Scaled down to a phone's picture a pen stroke is a pixel or two, blended with the
        // page: a run crosses a stroke when one of its pixels is clearly nearer the ink's
        // colour than the page beside it (the run's first pixel) is.
        func distance(_ px: [Int], _ c: RGB) -> Double {
            guard px.count == 3 else { return .infinity }
            let d = [px[0] - Int(c.r), px[1] - Int(c.g), px[2] - Int(c.b)]
            return Double(d.map { $0 * $0 }.reduce(0, +)).squareRoot()
        }
        func crosses(_ run: [[Int]], _ c: RGB) -> Bool {
            guard let page = run.first else { return false }
            return run.map { distance($0, c) }.min()! < 0.75 * distance(page, c)
        }
        var columns: [[[Int]]] = []
        do {
            try cleo.poll("Cleo's picture with both strokes") {
                let ready =
                    try cleo.execute("const i = document.getElementById('preview-img'); return !i.hidden && i.naturalWidth > 0 && !!window.Lectern.app.state.ink.box") as? Bool
                    == true
                guard ready else { return false }
                columns = try self.pictureColumns(cleo, [(0.4, 0.3), (0.6, 0.3), (0.4, 0.7), (0.6, 0.7)])
                return columns.count == 4 && columns[0...1].allSatisfy { crosses($0, anaColor) } && columns[2...3].allSatisfy { crosses($0, benColor) }
            }
        } catch {
            XCTFail("Cleo's picture at the strokes: \(columns)")
            throw error
        }
        _ = try TestOutput.write(try cleo.screenshot(), "ink-late-joiner-phone.png")
    }
}
