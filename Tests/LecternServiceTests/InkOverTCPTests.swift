import Foundation
import LecternClient
import LecternModel
import LecternDisplay
import LecternPipeline
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// The pointer and shared ink (issue 16) against a real service: real sockets, poppler's
/// page on the virtual display, cairo's ink over it, checked pixel by pixel.
final class InkOverTCPTests: XCTestCase {
    /// Pixels that differ between two frames of the same size.
    static func changed(_ a: Frame, _ b: Frame) -> [(x: Int, y: Int)] {
        var out: [(Int, Int)] = []
        for y in 0..<a.height { for x in 0..<a.width where a.pixel(x: x, y: y) != b.pixel(x: x, y: y) { out.append((x, y)) } }
        return out
    }

    func deck(width: Double, height: Double, pages: Int = 1) throws -> String {
        try Fixtures.pdf(Array(repeating: Fixtures.quadrantPage(width: width, height: height), count: pages), in: Fixtures.tempDir("ink"))
    }

    /// Shows `pdf` with a moderator and returns it with the page's plain frame.
    func present(_ h: ServiceHarness, _ pdf: String, by c: LecternConnection) throws -> (ContentID, Frame) {
        let stored = try c.upload(path: pdf)
        try c.present(stored.content)
        let plain = try h.expectedFrame(pdf: pdf, page: 1)
        try eventually("the page on the wall") { PixelCompare.differingPixels(h.service.stage.screenshot(), plain) == 0 }
        return (stored.content, plain)
    }

    // MARK: the pointer

    func checkPointer(mode: String, page: (Double, Double), overscan: Double, at expected: (x: Int, y: Int), file: StaticString = #filePath, line: UInt = #line) throws {
        let h = try ServiceHarness(floor: .moderated) { c in
            c.mode = RequestedMode(parsing: mode); c.overscanPercent = overscan
        }
        let mod = try h.moderator()
        let (_, plain) = try present(h, try deck(width: page.0, height: page.1), by: mod)
        let renders = h.service.stage.compositor.renderCount
        try mod.confirm([mod.point(x: 0.25, y: 0.5)])
        try eventually("the pointer's dot at \(expected) on \(mode)") {
            h.service.stage.screenshot().pixel(x: expected.x, y: expected.y) == InkPalette.pointer
        }
        // Nothing but the dot (and its ring) changed: every changed pixel is close to it.
        let shot = h.service.stage.screenshot()
        let far = Self.changed(shot, plain).filter { hypot(Double($0.x - expected.x), Double($0.y - expected.y)) > 30 }
        XCTAssertEqual(far.count, 0, "pixels changed away from the dot: \(far.prefix(5))", file: file, line: line)
        XCTAssertEqual(h.service.stage.compositor.renderCount, renders, "the pointer made the page render again", file: file, line: line)
        // Lifted: it fades, and the page is as it was.
        mod.point(x: 0.25, y: 0.5, lifted: true)
        try eventually("the dot faded") { PixelCompare.differingPixels(h.service.stage.screenshot(), plain) == 0 }
    }

    func testPointerAtAQuarterAcrossHalfDownLandsThereOnEveryShapeOfOutput() throws {
        // 4:3 on 16:9: the page is 1440×1080 at x = 240 → (240 + 360, 540)
        try checkPointer(mode: "1920x1080", page: (800, 600), overscan: 0, at: (600, 540))
        // 16:9 on 16:10: the page is 1920×1080 at y = 60 → (480, 60 + 540)
        try checkPointer(mode: "1920x1200", page: (1600, 900), overscan: 0, at: (480, 600))
        // 4:3 on 16:9 with 5 % overscan: safe area 1728×972 at (96, 54), page 1296×972 at (312, 54)
        try checkPointer(mode: "1920x1080", page: (800, 600), overscan: 5, at: (312 + 324, 54 + 486))
    }

    func testOnlyTheHolderAndTheModeratorPoint() throws {
        let h = try ServiceHarness(floor: .moderated)
        let mod = try h.moderator()
        let bob = try h.presenter("Bob")
        _ = try present(h, try deck(width: 800, height: 600), by: mod)
        XCTAssertServerError(.leadOnly, try bob.confirm([bob.point(x: 0.5, y: 0.5)]))
        try mod.control(.blank(white: false))
        XCTAssertServerError(.nothingToInk, try mod.confirm([mod.point(x: 0.5, y: 0.5)]))
    }

    // MARK: strokes

    func testAStrokeFollowsItsCurveStaysOnItsPageAndALateJoinerGetsIt() throws {
        let h = try ServiceHarness(floor: .moderated)
        let mod = try h.moderator()
        let pdf = try deck(width: 800, height: 600, pages: 2)
        let (content, plain) = try present(h, pdf, by: mod)
        let rect = PixelRect(x: 240, y: 0, width: 1440, height: 1080)   // 4:3 on 1920×1080
        let samples = [(0.15, 0.5), (0.35, 0.45), (0.5, 0.55), (0.65, 0.45), (0.85, 0.5)].map { InkPoint(px: $0.0, py: $0.1) }
        let ok = try mod.draw(samples, tool: .pen, width: .thick, colorIndex: 2)
        XCTAssertEqual(ok.strokesOnPage, 1)
        let blue = InkPalette.colors[1]
        let onWall = { (p: InkSpline.Point) in (Int(p.x.rounded(.down)), Int(p.y.rounded(.down))) }
        let placed = samples.map { InkSpline.Point(Double(rect.x) + $0.px * Double(rect.width), Double(rect.y) + $0.py * Double(rect.height)) }
        try eventually("the stroke on the wall") {
            let f = h.service.stage.screenshot()
            return placed.allSatisfy {
                let (x, y) = onWall($0); return f.pixel(x: x, y: y) == blue
            }
        }
        let inked = h.service.stage.screenshot()
        // along the spline (not the polyline): the middles of its segments are blue
        let (start, segments) = InkSpline.beziers(placed)!
        var from = start
        var curve: [InkSpline.Point] = [start]
        for s in segments {
            let mid = InkSpline.evaluate(from: from, s, t: 0.5)
            let (x, y) = onWall(mid)
            XCTAssertEqual(inked.pixel(x: x, y: y), blue, "the curve's middle at \(x),\(y)")
            for i in 1...40 { curve.append(InkSpline.evaluate(from: from, s, t: Double(i) / 40)) }
            from = s.to
        }
        // and nowhere else: every changed pixel is within half the width (+2) of the curve
        let halfWidth = 0.009 * Double(rect.height) / 2 + 2
        let changed = Self.changed(inked, plain)
        XCTAssertGreaterThan(changed.count, 1000)
        let stray = changed.filter { c in !curve.contains { hypot($0.x - Double(c.x), $0.y - Double(c.y)) <= halfWidth + 1 } }
        XCTAssertEqual(stray.count, 0, "ink away from the curve: \(stray.prefix(5))")

        // Turn away: page 2 is clean; come back: the stroke is there, exactly.
        try mod.control(.next)
        let page2 = try h.expectedFrame(pdf: pdf, page: 2)
        try eventually("page 2 without ink") { PixelCompare.differingPixels(h.service.stage.screenshot(), page2) == 0 }
        try mod.control(.prev)
        try eventually("page 1 with its ink") { PixelCompare.differingPixels(h.service.stage.screenshot(), inked) == 0 }

        // A late joiner: the state counts it, ink-fetch has every point.
        let late = try h.presenter("Late")
        let s = try late.state()
        XCTAssertEqual(s.ink?.pages, [InkSnapshot.Page(content: content.hex, page: 1, strokes: 1)])
        XCTAssertEqual(s.ink?.strokes, 1)
        let strokes = try late.inkStrokes(content: content, page: 1)
        XCTAssertEqual(strokes.map(\.points), [samples])
        XCTAssertEqual(strokes.first?.author, mod.deviceID)
        XCTAssertEqual(strokes.first?.color, blue)
        XCTAssertEqual(try late.inkStrokes(content: content, page: 2), [])
    }

    func testFourDrawersEachInTheirColourAFifthRefusedUndoAndClear() throws {
        let h = try ServiceHarness(floor: .moderated)
        let mod = try h.moderator()
        let alice = try h.presenter("Alice"), bob = try h.presenter("Bob"), carol = try h.presenter("Carol")
        let dave = try h.presenter("Dave"), erin = try h.presenter("Erin")
        _ = try alice.requestFloor()
        try mod.moderate(.grant, target: alice.deviceID)
        _ = try alice.waitForState { $0.floor.holder == alice.deviceID }
        let (_, plain) = try present(h, try deck(width: 800, height: 600), by: mod)
        XCTAssertServerError(.notAllowedToDraw, try bob.draw([InkPoint(px: 0.2, py: 0.5)]))
        XCTAssertServerError(.leadOnly, try bob.inkAllow(bob.deviceID))
        try alice.inkAllow(bob.deviceID)
        try alice.inkAllow(carol.deviceID)
        try mod.inkAllow(dave.deviceID)

        let rect = PixelRect(x: 240, y: 0, width: 1440, height: 1080)
        func line(_ y: Double) -> [InkPoint] { [InkPoint(px: 0.15, py: y), InkPoint(px: 0.3, py: y), InkPoint(px: 0.45, py: y)] }
        func wallY(_ y: Double) -> Int { rect.y + Int(y * Double(rect.height)) }
        let drawers: [(LecternConnection, Double)] = [(alice, 0.42), (bob, 0.46), (carol, 0.5), (mod, 0.54)]
        for (c, y) in drawers { try c.draw(line(y)) }
        XCTAssertServerError(.tooManyDrawers, try dave.draw(line(0.58)))
        XCTAssertServerError(.notAllowedToDraw, try erin.draw(line(0.58)))

        let state = try mod.waitForState { $0.ink?.strokes == 4 }
        let colorOf = Dictionary(uniqueKeysWithValues: (state.ink?.drawers ?? []).map { ($0.device, RGB(parsing: $0.color)!) })
        XCTAssertEqual(Set(colorOf.values).count, 4, "four drawers, four colours: \(colorOf)")
        let x = rect.x + Int(0.3 * Double(rect.width))
        try eventually("four lines, each in its drawer's colour") {
            let f = h.service.stage.screenshot()
            return drawers.allSatisfy { c, y in f.pixel(x: x, y: wallY(y)) == colorOf[c.deviceID] }
        }

        // Undo removes only the author's last stroke.
        try bob.draw(line(0.62))
        try eventually("bob's second line") { h.service.stage.screenshot().pixel(x: x, y: wallY(0.62)) == colorOf[bob.deviceID] }
        try bob.inkUndo()
        try eventually("bob's second line gone, everything else still there") {
            let f = h.service.stage.screenshot()
            return f.pixel(x: x, y: wallY(0.62)) == plain.pixel(x: x, y: wallY(0.62))
                && drawers.allSatisfy { c, y in f.pixel(x: x, y: wallY(y)) == colorOf[c.deviceID] }
        }
        XCTAssertEqual(try bob.inkStrokes().map(\.author), [alice, bob, carol, mod].map(\.deviceID))
        XCTAssertServerError(.nothingToUndo, try erin.inkUndo())

        // Clearing is for the holder and the moderator.
        XCTAssertServerError(.leadOnly, try bob.inkClear())
        try alice.inkClear()
        try eventually("a clean page") { PixelCompare.differingPixels(h.service.stage.screenshot(), plain) == 0 }
        XCTAssertEqual(try mod.waitForState { $0.ink?.strokes == 0 }.ink?.pages, [])
    }

    func testLimitsAnswerWithClearErrors() throws {
        let h = try ServiceHarness(floor: .moderated)
        let mod = try h.moderator()
        _ = try present(h, try deck(width: 800, height: 600), by: mod)
        let long = (0..<1001).map { InkPoint(px: Double($0) / 1001, py: 0.5) }
        XCTAssertServerError(.strokeTooLong, try mod.draw(long))
        XCTAssertServerError(.noStroke, try mod.request(.ink(.strokePoints([InkPoint(px: 0, py: 0)]))))
        // a body with more points than a message may carry closes nothing but answers malformed
        XCTAssertEqual(try mod.state().ink?.strokes, 1, "the first 1000 points were kept as a stroke")
    }
}

/// Ink and a display mode change (a hotplugged projector, a virtio resize): the stroke is at
/// the same page coordinates at the new mode.
final class InkModeChangeTests: XCTestCase {
    /// A virtual display whose mode can change, as a hotplug would change it.
    final class SwitchableOutput: Output, @unchecked Sendable {
        private var display: VirtualDisplay
        private var pending: DisplayMode?
        init(_ mode: DisplayMode) { display = VirtualDisplay(mode: mode) }
        var mode: DisplayMode { display.mode }
        var name: String { "switchable \(display.mode)" }
        func present(draw: (Frame) throws -> Void) throws { try display.present(draw: draw) }
        func readBack() -> Frame { display.readBack() }
        var presentCount: Int { display.presentCount }
        var wantsHotplugEvents: Bool { true }
        func plug(_ m: DisplayMode) { pending = m }
        func reprobe() throws -> Bool {
            guard let m = pending else { return false }
            pending = nil
            display = VirtualDisplay(mode: m)
            return true
        }
    }

    func testTheStrokeStaysAtItsPageCoordinatesAfterAModeChange() throws {
        let dir = Fixtures.tempDir("ink-mode")
        let store = try ContentStore(dataDir: dir + "/data")
        let item = try store.add(fileAt: try Fixtures.pdf([Fixtures.quadrantPage(width: 800, height: 600)], in: dir))
        let output = SwitchableOutput(DisplayMode(width: 1920, height: 1080, refresh: 60))
        let stage = Stage(
            output: output,
            compositor: Compositor(
                settings: .init(width: 1920, height: 1080), idle: IdleScreen(room: "R", addresses: [], port: 7420),
                documents: { try store.document($0) }))
        let stroke = InkStroke(
            id: 1, author: 1, color: InkPalette.colors[2], tool: .pen, width: .thick,
            points: [InkPoint(px: 0.2, py: 0.5), InkPoint(px: 0.8, py: 0.5)])
        stage.ink.setLayer(InkLayer(strokes: [stroke]), for: .init(content: item.id, page: 1))
        try stage.show(.page(content: item.id, page: 1))
        func check(_ rect: PixelRect) throws {
            try eventually("the stroke at the page's middle on \(output.mode)") {
                let f = stage.screenshot()
                return [0.25, 0.5, 0.75].allSatisfy { px in
                    f.pixel(x: rect.x + Int(px * Double(rect.width)), y: rect.y + rect.height / 2) == InkPalette.colors[2]
                } && f.pixel(x: rect.x + Int(0.1 * Double(rect.width)), y: rect.y + rect.height / 2) != InkPalette.colors[2]
            }
        }
        try check(PixelRect(x: 240, y: 0, width: 1440, height: 1080))
        output.plug(DisplayMode(width: 1280, height: 1024, refresh: 60))   // 5:4: bars top and bottom
        try stage.displayChanged()
        try check(PixelRect(x: 0, y: 32, width: 1280, height: 960))
    }

    /// A beamer deck shown as its slide half: the page coordinates are those of the half shown.
    func testOnAPagePartTheInkIsInTheVisibleBoxCoordinates() throws {
        let dir = Fixtures.tempDir("ink-part")
        let store = try ContentStore(dataDir: dir + "/data")
        let item = try store.add(fileAt: try Fixtures.pdf([Fixtures.quadrantPage(width: 1600, height: 600)], in: dir))
        let stage = Stage(
            output: VirtualDisplay(mode: DisplayMode(width: 1920, height: 1080, refresh: 60)),
            compositor: Compositor(
                settings: .init(width: 1920, height: 1080), idle: IdleScreen(room: "R", addresses: [], port: 7420),
                documents: { try store.document($0) }))
        stage.ink.setLayer(
            InkLayer(strokes: [
                InkStroke(
                    id: 1, author: 1, color: InkPalette.colors[2], tool: .pen, width: .thick,
                    points: [InkPoint(px: 0.2, py: 0.5), InkPoint(px: 0.8, py: 0.5)])
            ]), for: .init(content: item.id, page: 1))
        try stage.show(.pagePart(content: item.id, page: 1, part: .left))
        // the left half is 800×600 (4:3): 1440×1080 at x = 240
        try eventually("the stroke across the middle of the half shown") {
            let f = stage.screenshot()
            return [0.25, 0.5, 0.75].allSatisfy { f.pixel(x: 240 + Int($0 * 1440), y: 540) == InkPalette.colors[2] }
        }
        XCTAssertEqual(stage.pageBox, InkSnapshot.Box(x: 0.125, y: 0, width: 0.75, height: 1))
    }
}

/// Whiteboards: blank 16:9 pages to ink on, kept like a deck.
final class WhiteboardOverTCPTests: XCTestCase {
    func testANewWhiteboardIsABlankPageToInkOnAndStaysWithTheMeeting() throws {
        let h = try ServiceHarness(floor: .moderated) { c in c.mode = RequestedMode(width: 1920, height: 1200) }
        let mod = try h.moderator()
        let bob = try h.presenter("Bob")
        XCTAssertServerError(.noFloor, try bob.request(.ink(.whiteboard(black: false))))
        XCTAssertEqual(try mod.request(.ink(.whiteboard(black: false))), .presentOK)
        let stage = try XCTUnwrap(h.service.stage)
        // 16:9 on 1920×1200: white 1920×1080 at y = 60, bars above and below
        try eventually("a white 16:9 board") {
            let f = stage.screenshot()
            return f.isUniform(PixelRect(x: 0, y: 60, width: 1920, height: 1080), .white) && f.isUniform(PixelRect(x: 0, y: 0, width: 1920, height: 60), .black)
        }
        var s = try mod.state()
        XCTAssertEqual(s.screen.content?.id.hex, Whiteboard.whiteHex)
        XCTAssertEqual(s.screen.content?.name, "Whiteboard")
        XCTAssertEqual(s.ink?.box, InkSnapshot.Box(x: 0, y: 0.05, width: 1, height: 0.9))
        try mod.draw([InkPoint(px: 0.2, py: 0.5), InkPoint(px: 0.8, py: 0.5)], width: .thick, colorIndex: 2)
        let inked = { stage.screenshot().pixel(x: 960, y: 60 + 540) == InkPalette.colors[1] }
        try eventually("the stroke on the board") { inked() }
        // a black one, then back to the white one: its ink is there
        XCTAssertEqual(try mod.request(.ink(.whiteboard(black: true))), .presentOK)
        try eventually("a black board") { stage.screenshot().isUniform(PixelRect(x: 0, y: 60, width: 1920, height: 1080), .black) }
        XCTAssertEqual(try mod.request(.ink(.whiteboard(black: false))), .presentOK)
        s = try mod.state()
        XCTAssertEqual(s.screen.page, 2)
        XCTAssertEqual(s.ink?.whiteboards, [2, 1])
        try mod.control(.prev)
        try eventually("white board 1 with its stroke") { inked() }
        XCTAssertEqual(try mod.inkStrokes().count, 1)
        h.service.flushState()
        let saved = (try? String(contentsOfFile: h.dir + "/data/state.json", encoding: .utf8)) ?? ""
        XCTAssertTrue(saved.contains("\"whiteboards\":[2,1]"), saved)
    }
}
