import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// The ink core in memory: drawers, colours, undo, erase, clear, allow, limits, saving.
final class InkBoardTests: XCTestCase {
    let page1 = InkPageRef(content: "aa", page: 1)
    let page2 = InkPageRef(content: "aa", page: 2)
    func pts(_ n: Int, _ y: Double = 0.5) -> [InkPoint] { (0..<n).map { InkPoint(px: Double($0) / Double(max(1, n)), py: y) } }
    func lead(_ d: DeviceID) -> InkBoard.Who { .init(device: d, lead: true) }
    func guest(_ d: DeviceID) -> InkBoard.Who { .init(device: d, lead: false) }

    func draw(_ b: inout InkBoard, _ w: InkBoard.Who, on page: InkPageRef, n: Int = 3) throws -> InkStroke {
        try b.begin(w, on: page, tool: .pen, width: .thin, colorIndex: 0, points: pts(n))
        return try b.end(w.device, points: [])
    }

    func testStrokesStayOnTheirPageAndEachDrawerHasAColour() throws {
        var b = InkBoard()
        var colors: [RGB] = []
        for d: DeviceID in 1...4 {
            try b.allow(lead(1), d, true)
            colors.append(try draw(&b, guest(d), on: page1).color)
        }
        XCTAssertEqual(Set(colors).count, 4, "four drawers, four colours")
        XCTAssertEqual(Array(InkPalette.colors.prefix(4)), colors)
        XCTAssertEqual(b.strokes(on: page1).count, 4)
        XCTAssertEqual(b.strokes(on: page2).count, 0)
        // a fifth is refused while the four still may draw
        try b.allow(lead(1), 5, true)
        XCTAssertThrowsError(try draw(&b, guest(5), on: page1)) { XCTAssertEqual(($0 as? LecternError)?.code, .tooManyDrawers) }
        // once one of them may no longer draw, its colour goes to the fifth
        XCTAssertNoThrow(
            try b.begin(guest(5), on: page1, tool: .pen, width: .thin, colorIndex: 0, points: pts(2), stillDrawing: { $0 != 3 }))
        XCTAssertEqual(b.drawerColor(of: 5), InkPalette.colors[2])
    }

    func testOnlyThoseAllowedDraw() throws {
        var b = InkBoard()
        XCTAssertThrowsError(try draw(&b, guest(7), on: page1)) { XCTAssertEqual(($0 as? LecternError)?.code, .notAllowedToDraw) }
        XCTAssertThrowsError(try b.allow(guest(7), 7, true)) { XCTAssertEqual(($0 as? LecternError)?.code, .leadOnly) }
        XCTAssertNoThrow(try draw(&b, .init(device: 7, lead: false, everyoneDraws: true), on: page1))
        try b.allow(lead(1), 7, true)
        XCTAssertNoThrow(try draw(&b, guest(7), on: page1))
        try b.allow(lead(1), 7, false)
        XCTAssertThrowsError(try draw(&b, guest(7), on: page1))
        XCTAssertEqual(b.strokes(on: page1).count, 2, "denying keeps the strokes")
    }

    func testUndoRemovesOnlyTheAuthorsLastStroke() throws {
        var b = InkBoard()
        let a1 = try draw(&b, lead(1), on: page1)
        let c1 = try draw(&b, lead(2), on: page1)
        let a2 = try draw(&b, lead(1), on: page1)
        let c2 = try draw(&b, lead(2), on: page1)
        XCTAssertEqual(try b.undo(1, on: page1).id, a2.id)
        XCTAssertEqual(b.strokes(on: page1).map(\.id), [a1.id, c1.id, c2.id])
        XCTAssertEqual(try b.undo(1, on: page1).id, a1.id)
        XCTAssertThrowsError(try b.undo(1, on: page1)) { XCTAssertEqual(($0 as? LecternError)?.code, .nothingToUndo) }
        XCTAssertEqual(b.strokes(on: page1).map(\.id), [c1.id, c2.id])
        XCTAssertEqual(b.totalPoints, 6)
    }

    func testEraseAndClear() throws {
        var b = InkBoard()
        _ = try draw(&b, lead(1), on: page1)
        _ = try draw(&b, lead(2), on: page1)
        _ = try draw(&b, lead(1), on: page1)
        _ = try draw(&b, lead(1), on: page2)
        XCTAssertEqual(try b.erase(1, on: page1), 2)
        XCTAssertEqual(b.strokes(on: page1).map(\.author), [2])
        XCTAssertThrowsError(try b.clear(guest(2), page: page1)) { XCTAssertEqual(($0 as? LecternError)?.code, .leadOnly) }
        XCTAssertEqual(try b.clear(lead(3), page: page1), 1)
        XCTAssertEqual(b.strokes(on: page2).count, 1)
        _ = try draw(&b, lead(1), on: InkPageRef(content: "bb", page: 1))
        XCTAssertEqual(try b.clear(lead(3), deck: "aa"), 1)
        XCTAssertEqual(b.strokeCount, 1, "the other deck keeps its ink")
        XCTAssertEqual(b.totalPoints, 3)
    }

    func testLimits() throws {
        var l = InkBoard.Limits()
        l.pointsPerStroke = 10
        l.strokesPerPage = 2
        l.pointsPerPage = 15
        l.totalPoints = 20
        var b = InkBoard(limits: l)
        try b.begin(lead(1), on: page1, tool: .pen, width: .thin, colorIndex: 0, points: pts(8))
        XCTAssertThrowsError(try b.append(1, points: pts(3))) { XCTAssertEqual(($0 as? LecternError)?.code, .strokeTooLong) }
        XCTAssertEqual(try b.end(1, points: pts(2)).points.count, 10)
        try b.begin(lead(1), on: page1, tool: .pen, width: .thin, colorIndex: 0, points: pts(5))
        XCTAssertThrowsError(try b.append(1, points: pts(1))) { XCTAssertEqual(($0 as? LecternError)?.code, .pageInkFull) }
        _ = try b.end(1, points: [])
        XCTAssertThrowsError(try draw(&b, lead(1), on: page1, n: 1)) { XCTAssertEqual(($0 as? LecternError)?.code, .pageInkFull) }
        XCTAssertThrowsError(try draw(&b, lead(1), on: page2, n: 6)) { XCTAssertEqual(($0 as? LecternError)?.code, .roomInkFull) }
        XCTAssertThrowsError(try b.end(1, points: [])) { XCTAssertEqual(($0 as? LecternError)?.code, .noStroke) }
        XCTAssertEqual(b.totalPoints, 15)
    }

    func testOpenStrokesShowOnTheirPageAndAreKeptWhenTheAuthorLeaves() throws {
        var b = InkBoard()
        try b.begin(lead(1), on: page1, tool: .highlighter, width: .thick, colorIndex: 6, points: pts(4))
        XCTAssertEqual(b.layer(for: page1).live.count, 1)
        XCTAssertEqual(b.layer(for: page1).strokes.count, 0)
        XCTAssertEqual(b.layer(for: page1).live[0].color, InkPalette.colors[5])
        XCTAssertTrue(b.layer(for: page2).isEmpty)
        XCTAssertEqual(b.strokes(on: page1).count, 0, "not finished yet")
        b.forget(1)
        XCTAssertEqual(b.strokes(on: page1).count, 1)
        XCTAssertNil(b.drawerColor(of: 1))
    }

    func testSavedBoardComesBackWithinTheLimits() throws {
        var b = InkBoard()
        _ = try draw(&b, lead(1), on: page1)
        _ = try draw(&b, lead(2), on: page2)
        try b.allow(lead(1), 9, true)
        let data = try JSONEncoder().encode(b.saved)
        let back = InkBoard(restoring: try JSONDecoder().decode(InkBoard.Saved.self, from: data))
        XCTAssertEqual(back.pages, b.pages)
        XCTAssertEqual(back.allowed, [9])
        XCTAssertEqual(back.totalPoints, 6)
        var l = InkBoard.Limits()
        l.totalPoints = 4
        XCTAssertEqual(InkBoard(restoring: b.saved, limits: l).strokeCount, 1, "a hostile state file can't bring more than the limits")
        var again = back
        XCTAssertGreaterThan(try draw(&again, lead(1), on: page1).id, b.strokes(on: page2)[0].id, "ids are not reused")
    }

    func testSplinePassesThroughEverySampleAndIsSmooth() {
        let p = [InkSpline.Point(0, 0), .init(1, 1), .init(2, 0), .init(3, 1)]
        let (start, segs) = InkSpline.beziers(p)!
        XCTAssertEqual(start, p[0])
        XCTAssertEqual(segs.map(\.to), Array(p.dropFirst()))
        // tangent continuity at the inner samples: c2 of one and c1 of the next are mirrored
        for i in 0..<(segs.count - 1) {
            let j = segs[i].to
            XCTAssertEqual(j.x - segs[i].c2.x, segs[i + 1].c1.x - j.x, accuracy: 1e-9)
            XCTAssertEqual(j.y - segs[i].c2.y, segs[i + 1].c1.y - j.y, accuracy: 1e-9)
        }
        // not a polyline: the middle of the first segment bulges above its chord (0.5, 0.5)
        let mid = InkSpline.evaluate(from: start, segs[0], t: 0.5)
        XCTAssertGreaterThan(mid.y, 0.55)
        XCTAssertEqual(InkSpline.beziers([.init(1, 1), .init(1, 1)])!.segments.count, 0)
        XCTAssertNil(InkSpline.beziers([]))
    }

    func testPointerFadesAfterLiftAndTrailShortens() {
        var t = InkPointerTrace()
        t.move(to: InkPoint(px: 0.1, py: 0.1), at: 0)
        t.move(to: InkPoint(px: 0.2, py: 0.1), at: 0.1)
        XCTAssertEqual(t.trail(now: 0.1).count, 2)
        XCTAssertEqual(t.opacity(now: 5), 1, "held still: stays")
        XCTAssertEqual(t.trail(now: 1).count, 1, "the trail is short")
        t.lift(at: 1)
        XCTAssertTrue(t.animating(now: 1.2))
        XCTAssertEqual(t.opacity(now: 1 + InkPointerTrace.fadeSeconds / 2), 0.5, accuracy: 1e-9)
        XCTAssertFalse(t.visible(now: 1 + InkPointerTrace.fadeSeconds))
    }
}
