import Foundation
import LecternClient
import LecternModel
import LecternPipeline
import LecternProtocol
import LecternRender
import LecternTestSupport
import XCTest

/// The first slide sooner (docs/protocol.md §30.8), through a real `lecternd` with its real
/// sandboxed LibreOffice, TLS on as shipped (the client pins the certificate the service
/// made): a 40-slide `.pptx` goes on the wall by its first slide while the rest converts;
/// next past it is refused with the reason and the wall stays; ink and a typed note on
/// slide 1 are kept when the whole deck takes its place, and the wall doesn't change then.
///
/// The converter is held (SIGSTOP to the processes of this test's own sandboxes) from the
/// moment page 1 is ready until the checks are done: the whole deck can't overtake them,
/// however fast the machine; SIGCONT lets it finish.
final class FirstSlideSoonerTests: XCTestCase {
    typealias Daemon = CLITests.Daemon

    func expected(_ pdf: String, page: Int) throws -> Frame {
        try Compositor.renderPage(PDFDocument(path: pdf), page: page, settings: .init(width: 1280, height: 720))
    }

    func screenshot(_ d: Daemon) throws -> Frame {
        let shot = d.dir + "/shot-\(UUID().uuidString.prefix(6)).png"
        let r = try d.lectern(["screenshot", shot], name: "camera")
        XCTAssertEqual(r.status, 0, r.err)
        return try PNG.read(path: shot)
    }

    /// The certificate the service made for itself (`data_dir/tls`), to pin.
    func fingerprint(_ d: Daemon) throws -> CertificateFingerprint {
        let pem = try String(contentsOfFile: d.dir + "/data/tls/certificate.pem", encoding: .utf8)
        let base64 = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return CertificateFingerprint(der: [UInt8](try XCTUnwrap(Data(base64Encoded: base64))))
    }

    func testTheFirstSlideGoesUpWhileTheRestConvertsAndTheWallStaysPutWhenItArrives() throws {
        let d = try Daemon()
        let deck = d.dir + "/deck.pptx"
        try OfficeDocuments.pptx(deck, slides: 40, pictureSize: 1024)
        let reference = try LibreOfficeReference.convert(deck, outDir: d.dir + "/reference", picturesAsTheyAre: true)
        let sandboxes = d.dir + "/data/convert"
        defer { ProcessTree.signal(SIGCONT, naming: sandboxes) }   // never left held

        let c = try LecternConnection(host: "127.0.0.1", port: d.port, timeout: 120, tls: .pinned(try fingerprint(d)))
        try c.register(name: "Ana", role: .presenter, passcode: "cli-presenter")
        _ = try c.requestFloor()
        var held: [Int32] = []
        let stored = try c.upload(
            path: deck,
            converting: { p in
                if p.stage == .firstPage, held.isEmpty { held = ProcessTree.signal(SIGSTOP, naming: sandboxes) }
            }, firstPage: true)
        XCTAssertFalse(held.isEmpty, "the converter's processes, held")
        XCTAssertEqual(stored.pageCount, 1)
        try c.present(stored.content, page: 1)

        // What exists: one page, and the state says so.
        let state = try c.state()
        XCTAssertEqual([state.screen.page, state.screen.pageCount], [1, 1])
        XCTAssertEqual(state.conversions?.first?.ready, 1)
        XCTAssertEqual(state.conversions?.first?.total, 40)
        XCTAssertEqual(PixelCompare.differingPixels(try screenshot(d), try expected(reference, page: 1)), 0, "slide 1 as LibreOffice renders it")

        // Next past it: the reason, and the wall stays.
        XCTAssertThrowsError(try c.control(.next)) {
            guard case LecternConnection.ClientError.server(let e)? = $0 as? LecternConnection.ClientError else { return XCTFail("\($0)") }
            XCTAssertEqual(e.code, .pageStillConverting)
            XCTAssertTrue(e.message.hasPrefix("Slide 2 of deck.pptx is still being converted"), e.message)
        }
        XCTAssertEqual(try c.state().screen.page, 1)

        // Ink and a note on slide 1 while the rest converts.
        try c.draw([InkPoint(px: 0.2, py: 0.2), InkPoint(px: 0.8, py: 0.8)], width: .thick)
        _ = try c.request(.notesEdit(NotesEdit(content: stored.content, page: 1, text: "Start with the numbers")))
        let before = try screenshot(d)
        XCTAssertGreaterThan(PixelCompare.differingPixels(before, try expected(reference, page: 1)), 100, "the ink is on the wall")

        // Let it finish: every slide, the same wall.
        ProcessTree.signal(SIGCONT, naming: sandboxes)
        _ = try c.waitForState(timeout: 120) { $0.screen.pageCount == 40 }
        XCTAssertEqual(PixelCompare.differingPixels(try screenshot(d), before), 0, "no change on the wall when the whole deck takes its place")
        XCTAssertEqual(try c.state().conversions, [])

        try c.control(.next)
        XCTAssertEqual(PixelCompare.differingPixels(try screenshot(d), try expected(reference, page: 2)), 0, "slide 2, from the whole deck")
        try c.control(.prev)
        XCTAssertEqual(PixelCompare.differingPixels(try screenshot(d), before), 0, "slide 1 and its ink")
        XCTAssertEqual(try c.notes(stored.content, page: 1).pages.first?.text, "Start with the numbers")
        XCTAssertTrue(d.process.text.contains("page 1 ready"), d.process.text)
    }

    /// `lectern present deck.pptx` goes up on the first slide and says the rest converts.
    func testTheCLIPresentsOnTheFirstSlide() throws {
        let d = try Daemon()
        let deck = d.dir + "/talk.pptx"
        try OfficeDocuments.pptx(deck, slides: 4)
        let r = try d.lectern(["present", deck], name: "bo")
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.err.contains("Converting talk.pptx · slide 1 ready, shown while the rest converts (4 in all)"), r.err)
        try eventually("the whole deck") { try d.lectern(["status"], name: "bo").out.contains("page 1/4") }
    }
}
