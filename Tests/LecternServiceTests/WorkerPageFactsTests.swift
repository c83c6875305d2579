import Foundation
import LecternClient
import LecternModel
import LecternPipeline
import LecternProtocol
import LecternRender
import LecternService
import LecternTestSupport
import XCTest

/// The service draws its pages in render workers and never opens a PDF itself for a page's
/// box or its `/Trans`: both come back with the page in the worker's one reply (issue 26).
/// A real service, over TLS as shipped.
final class WorkerPageFactsTests: XCTestCase {
    func testTheServiceOpensNoPDFForAPagesBoxOrItsTransition() throws {
        let h = try ServiceHarness(floor: .open)
        XCTAssertNotNil(h.service.stage.compositor.workers, "pages are drawn in render workers")
        let ana = try h.presenter("Ana")
        _ = try ana.requestFloor()

        // A 16:9 deck whose page 2 fades in: the fade plays, taken from the worker's reply.
        let faded = try Fixtures.transitionDeck(
            [RGB(200, 0, 0), RGB(0, 200, 0), RGB(0, 0, 200)], transitions: [nil, "/S /Fade /D 0.6", nil], in: h.dir)
        let deck = try ana.upload(path: faded)
        try ana.present(deck.content, page: 1)
        XCTAssertEqual(try ana.state().ink?.box, InkSnapshot.Box(x: 0, y: 0, width: 1, height: 1))
        try ana.control(.next)
        try eventually("page 2's own fade plays", timeout: 5, interval: 0.005) { h.service.stage.isTransitioning }

        // A beamer deck's slide half (640×480 of a 1280×480 page): its box is the half shown.
        let beamer = try Fixtures.beamerNotesDeck(labels: ["1", "2"], in: h.dir, name: "talk.pdf")
        let talk = try ana.upload(path: beamer)
        try ana.present(talk.content, page: 1)
        let fourByThree = InkSnapshot.Box(x: 0.125, y: 0, width: 0.75, height: 1)
        XCTAssertEqual(try ana.state().ink?.box, fourByThree)
        try ana.control(.next)   // a prerendered neighbour: the box from the cache
        try eventually("page 2 on the wall", timeout: 5) { (try? ana.state().screen.page) == 2 }
        XCTAssertEqual(try ana.state().ink?.box, fourByThree)
        let wall = try PNG.decode(ana.screenshot())
        let slideHalf = try Compositor.renderPage(PDFDocument(path: beamer), page: 2, settings: h.service.stage.compositor.settings, part: .left)
        XCTAssertEqual(PixelCompare.differingPixels(wall, slideHalf), 0, "the slide half of page 2")

        XCTAssertEqual(h.service.store.openCount, 0, "the service opened a PDF itself")
    }
}
