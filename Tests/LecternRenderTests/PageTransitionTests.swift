import Foundation
import LecternModel
import LecternPipeline
import LecternRender
import LecternTestSupport
import XCTest

/// `/Trans` read through poppler from PDFs written here by hand, and each style's frame
/// drawn from two frames (pure pixels).
final class PageTransitionTests: XCTestCase {
    func testTransTypesDurationsAndDirectionsAsPopplerReportsThem() throws {
        let entries: [(String?, PageTransition?)] = [
            (nil, nil),
            ("/S /Fade /D 0.75", PageTransition(style: .fade, duration: 0.75)),
            ("/S /Dissolve /D 2", PageTransition(style: .dissolve, duration: 2)),
            ("/S /Wipe /Di 90", PageTransition(style: .wipe, duration: 1, angle: 90)),
            ("/S /Wipe /D 0.5 /Di 180", PageTransition(style: .wipe, duration: 0.5, angle: 180)),
            ("/S /Push /Di 270", PageTransition(style: .push, angle: 270)),
            ("/S /Cover /D 1.5", PageTransition(style: .cover, duration: 1.5)),
            ("/S /Uncover /Di 270", PageTransition(style: .uncover, angle: 270)),
            ("/S /Split /Dm /V /M /O", PageTransition(style: .split, dimension: .vertical, motion: .outward)),
            ("/S /Split /Dm /H /M /I", PageTransition(style: .split, dimension: .horizontal, motion: .inward)),
            ("/S /Blinds /Dm /V", PageTransition(style: .blinds, dimension: .vertical)),
            ("/S /Box /M /O /D 0.3", PageTransition(style: .box, duration: 0.3, motion: .outward)),
            ("/S /Glitter /Di 315", PageTransition(style: .glitter, angle: 315)),
            ("/S /R", PageTransition(style: .replace)),
            // Hostile or odd: a duration past the limit is held to it, an angle the PDF
            // doesn't name is read as 0.
            ("/S /Fade /D 100000", PageTransition(style: .fade, duration: PageTransition.maxDuration)),
            ("/S /Wipe /Di 45", PageTransition(style: .wipe, angle: 0)),
        ]
        let dir = Fixtures.tempDir("trans-parse")
        let path = try Fixtures.transitionDeck(
            Array(repeating: Fixtures.red, count: entries.count), transitions: entries.map(\.0), in: dir)
        let doc = try PDFDocument(path: path)
        for (i, (trans, expected)) in entries.enumerated() {
            XCTAssertEqual(doc.transition(page: i + 1), expected, "page \(i + 1): \(trans ?? "no /Trans")")
        }
        XCTAssertNil(doc.transition(page: 99), "a page out of range has no transition, and no error")
        XCTAssertFalse(PageTransition(style: .replace).animates)
        XCTAssertFalse(PageTransition(style: .fade, duration: 0).animates)
    }

    // MARK: the styles' frames

    let w = 160, h = 90
    func frames() -> (Frame, Frame, Frame) {
        (Frame(width: w, height: h, color: Fixtures.red), Frame(width: w, height: h, color: Fixtures.blue), Frame(width: w, height: h))
    }
    func draw(_ t: PageTransition, _ p: Double) -> Frame {
        let (a, b, out) = frames()
        TransitionBlend.draw(t, progress: p, from: a, to: b, into: out)
        return out
    }
    func rect(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> PixelRect { PixelRect(x: x, y: y, width: w, height: h) }

    func testEveryStyleStartsAtTheOldPageAndEndsAtTheNewOne() {
        for style in PageTransition.Style.allCases {
            let t = PageTransition(style: style)
            let start = draw(t, 0), end = draw(t, 1)
            XCTAssertTrue(end.isUniform(end.bounds, Fixtures.blue), "\(style) at 1")
            if style != .fade {   // a fade at 0 is the old page too, this checks the geometry
                XCTAssertTrue(start.isUniform(start.bounds, Fixtures.red), "\(style) at 0")
            }
            guard style != .replace else { continue }   // a cut: the old page until the end
            let mid = draw(t, 0.5)
            XCTAssertFalse(mid.isUniform(mid.bounds, Fixtures.red), "\(style) at 0.5 is still the old page")
            XCTAssertFalse(mid.isUniform(mid.bounds, Fixtures.blue), "\(style) at 0.5 is the new page already")
        }
    }

    func testGeometryHalfWay() {
        let red = Fixtures.red, blue = Fixtures.blue
        var f = draw(PageTransition(style: .wipe), 0.5)   // left to right
        XCTAssertTrue(f.isUniform(rect(0, 0, 80, 90), blue) && f.isUniform(rect(80, 0, 80, 90), red))
        f = draw(PageTransition(style: .wipe, angle: 90), 0.25)   // bottom to top
        XCTAssertTrue(f.isUniform(rect(0, 0, 160, 67), red) && f.isUniform(rect(0, 67, 160, 23), blue))
        f = draw(PageTransition(style: .split, dimension: .vertical, motion: .outward), 0.5)
        XCTAssertTrue(f.isUniform(rect(40, 0, 80, 90), blue) && f.isUniform(rect(0, 0, 40, 90), red) && f.isUniform(rect(120, 0, 40, 90), red))
        f = draw(PageTransition(style: .box, motion: .outward), 0.5)
        XCTAssertTrue(f.isUniform(rect(40, 23, 80, 44), blue) && f.isUniform(rect(0, 0, 160, 20), red))
        f = draw(PageTransition(style: .blinds, dimension: .horizontal), 0.5)
        XCTAssertEqual(f.pixel(x: 5, y: 0), blue)
        XCTAssertEqual(f.pixel(x: 5, y: 10), red)
        XCTAssertEqual(f.pixel(x: 5, y: 12), blue)   // the second band starts at row 12
    }

    /// Push, Cover and Uncover move pictures: a marked column shows where each page went.
    func testPushCoverAndUncoverMoveThePages() {
        let a = Frame(width: w, height: h, color: Fixtures.red), b = Frame(width: w, height: h, color: Fixtures.blue)
        a.fill(rect(0, 0, 1, h), .white)   // the old page's left edge
        b.fill(rect(w - 1, 0, 1, h), .black)   // the new page's right edge
        let out = Frame(width: w, height: h)
        TransitionBlend.draw(PageTransition(style: .push), progress: 0.25, from: a, to: b, into: out)
        XCTAssertEqual(out.pixel(x: 39, y: 5), .black)   // new page's right edge, moved in 40 px
        XCTAssertEqual(out.pixel(x: 40, y: 5), .white)   // old page's left edge, pushed 40 px
        TransitionBlend.draw(PageTransition(style: .cover), progress: 0.25, from: a, to: b, into: out)
        XCTAssertEqual(out.pixel(x: 39, y: 5), .black)
        XCTAssertEqual(out.pixel(x: 40, y: 5), Fixtures.red)   // the old page stays put
        XCTAssertEqual(out.pixel(x: 0, y: 5), Fixtures.blue)
        TransitionBlend.draw(PageTransition(style: .uncover), progress: 0.25, from: a, to: b, into: out)
        XCTAssertEqual(out.pixel(x: 40, y: 5), .white)   // the old page slides away
        XCTAssertEqual(out.pixel(x: 39, y: 5), Fixtures.blue)   // over the new page standing still
    }

    func testDissolveIsAFixedSpeckleThatGrowsWithProgress() {
        let t = PageTransition(style: .dissolve)
        func blueShare(_ f: Frame) -> Double {
            var n = 0
            for y in 0..<h { for x in 0..<w where f.pixel(x: x, y: y) == Fixtures.blue { n += 1 } }
            return Double(n) / Double(w * h)
        }
        let q = draw(t, 0.25), half = draw(t, 0.5)
        XCTAssertEqual(blueShare(q), 0.25, accuracy: 0.04)
        XCTAssertEqual(blueShare(half), 0.5, accuracy: 0.04)
        for y in 0..<h { for x in 0..<w where q.pixel(x: x, y: y) == Fixtures.blue { XCTAssertEqual(half.pixel(x: x, y: y), Fixtures.blue) } }
    }

    func testTheTimelineCountsFromOneRefreshBeforeTheFirstFrame() {
        var run = TransitionRun(.fade(1), refreshPeriod: 0.02)
        XCTAssertEqual(run.next(now: 10), .frame(progress: 0.02))
        guard case .frame(let p) = run.next(now: 10.48) else { return XCTFail() }
        XCTAssertEqual(p, 0.5, accuracy: 1e-9)
        XCTAssertEqual(run.next(now: 11), .frame(progress: 1))
        XCTAssertEqual(run.next(now: 11.02), .done)
        var cut = TransitionRun(.fade(1), refreshPeriod: 0.02)
        _ = cut.next(now: 0)
        cut.interrupt()
        XCTAssertTrue(cut.interrupted)
        XCTAssertEqual(cut.next(now: 0.1), .done)
        let p1 = Scene.page(content: "a", page: 1), p2 = Scene.page(content: "a", page: 2)
        XCTAssertEqual(TransitionRun.choose(from: p1, to: p2, pageTransition: nil, fallback: .fade()), .fade())
        XCTAssertEqual(TransitionRun.choose(from: p1, to: p2, pageTransition: PageTransition(style: .wipe), fallback: .fade()), PageTransition(style: .wipe))
        XCTAssertNil(TransitionRun.choose(from: p1, to: p2, pageTransition: PageTransition(style: .replace), fallback: .fade()))
        XCTAssertNil(TransitionRun.choose(from: p1, to: p2, pageTransition: nil, fallback: nil))
        XCTAssertNil(TransitionRun.choose(from: .blank(.black), to: p2, pageTransition: .fade(), fallback: nil))
        XCTAssertNil(TransitionRun.choose(from: p1, to: .idle, pageTransition: .fade(), fallback: .fade()))
    }
}
