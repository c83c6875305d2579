import Foundation
import LecternClient
import LecternModel
import LecternPipeline
import LecternProtocol
import LecternRender
import LecternRoom
import LecternService
import LecternTestSupport
import XCTest

/// Wide pages on the wall (docs/protocol.md §20.3): a banner or a panorama is shown whole;
/// only a deck with real evidence of beamer's "notes on second screen" is shown as its
/// slide half. Over TLS, as shipped.
final class WidePagesTests: XCTestCase {
    func tlsPresenter(_ h: ServiceHarness, _ name: String) throws -> LecternConnection {
        let c = try LecternConnection(host: "127.0.0.1", port: h.port, tls: .pinned(try XCTUnwrap(h.service.tlsIdentity).fingerprint))
        try c.register(name: name, role: .presenter, passcode: ServiceHarness.presenterPass)
        return c
    }

    /// A page `width`×`height` points: the left half red, the right half blue with a word
    /// of text on it (what a banner's right half may well carry), no beamer mark.
    static func wideDeck(width: Double, height: Double, in dir: String, name: String) throws -> String {
        try Fixtures.pdf(
            [
                PDFSketch.Page(
                    width: width, height: height,
                    boxes: [
                        .init(x: 0, y: 0, width: 0.5, height: 1, color: Fixtures.red),
                        .init(x: 0.5, y: 0, width: 0.5, height: 1, color: Fixtures.blue),
                    ],
                    texts: [.init("Panorama", x: 0.6, y: 0.5, size: 0.2, color: .white)])
            ], in: dir, name: name)
    }

    func testBannersAndPanoramasAreShownWholeAndABeamerDeckIsStillSplit() throws {
        let h = try ServiceHarness(floor: .open) { $0.tls = true }
        let ana = try tlsPresenter(h, "Ana")
        _ = try ana.requestFloor()
        // 4:1 and 6.4:1, as pdf.js's banners and panoramas, with text on the right half.
        for (width, height) in [(1200.0, 300.0), (1920.0, 300.0)] {
            let pdf = try Self.wideDeck(width: width, height: height, in: h.dir, name: "wide-\(Int(width)).pdf")
            let stored = try ana.upload(path: pdf)
            try ana.present(stored.content, page: 1)
            XCTAssertEqual(try ana.state().console?.notesLayout, NotesLayout.none, "\(width)×\(height)")
            let wall = try PNG.decode(ana.screenshot())
            XCTAssertEqual(PixelCompare.differingPixels(wall, try h.expectedFrame(pdf: pdf, page: 1)), 0, "\(width)×\(height): the whole page")
            XCTAssertGreaterThan(count(Fixtures.blue, in: wall), 10_000, "\(width)×\(height): the right half is on the wall")
        }

        // A beamer deck (2 × 640×480, "Notes n" on the right half, beamer's Creator): still split.
        let beamer = try Fixtures.beamerNotesDeck(labels: ["1", "2"], in: h.dir, name: "talk.pdf")
        let stored = try ana.upload(path: beamer)
        try ana.present(stored.content, page: 1)
        XCTAssertEqual(try ana.state().console?.notesLayout, .right)
        let wall = try PNG.decode(ana.screenshot())
        let slideHalf = try Compositor.renderPage(PDFDocument(path: beamer), page: 1, settings: h.service.stage.compositor.settings, part: .left)
        XCTAssertEqual(PixelCompare.differingPixels(wall, slideHalf), 0, "the slide half")
        XCTAssertEqual(count(Fixtures.blue, in: wall), 0, "no notes on the wall")
    }

    /// Two 4:3 slides' shape side by side, text on the right half, but no beamer mark: a
    /// picture of that shape is shown whole too.
    func testASlideShapedPairWithoutEvidenceIsShownWhole() throws {
        let h = try ServiceHarness(floor: .open) { $0.tls = true }
        let ana = try tlsPresenter(h, "Ana")
        _ = try ana.requestFloor()
        let pdf = try Fixtures.pdf(
            [
                PDFSketch.Page(
                    width: 1280, height: 480,
                    boxes: [.init(x: 0, y: 0, width: 0.5, height: 1, color: Fixtures.red), .init(x: 0.5, y: 0, width: 0.5, height: 1, color: Fixtures.blue)],
                    texts: [.init("Notes?", x: 0.6, y: 0.5, size: 0.1, color: .white)])
            ], in: h.dir, name: "pair.pdf")
        let stored = try ana.upload(path: pdf)
        try ana.present(stored.content, page: 1)
        XCTAssertEqual(try ana.state().console?.notesLayout, NotesLayout.none)
        XCTAssertEqual(PixelCompare.differingPixels(try PNG.decode(ana.screenshot()), try h.expectedFrame(pdf: pdf, page: 1)), 0)
    }

    /// The switch from the command line (`lectern notes-layout`), against a real lecternd
    /// (TLS, as it ships): a banner split by hand and back, a beamer deck shown whole.
    func testTheCLISwitchesTheNotesLayoutOfAnUpload() throws {
        let d = try CLITests.Daemon(floor: "open")
        let pdf = try Self.wideDeck(width: 1200, height: 300, in: d.dir, name: "banner.pdf")
        let present = try d.lectern(["present", pdf], name: "ana")
        XCTAssertEqual(present.status, 0, present.err)
        func layout() throws -> String {
            let s = try d.lectern(["status", "--json"], name: "ana")
            XCTAssertEqual(s.status, 0, s.err)
            let json = try JSONSerialization.jsonObject(with: Data(s.out.utf8)) as? [String: Any]
            return ((json?["console"] as? [String: Any])?["notesLayout"] as? String) ?? "?"
        }
        XCTAssertEqual(try layout(), "none", "a banner is shown whole")
        let split = try d.lectern(["notes-layout", "split"], name: "ana")   // the deck on screen
        XCTAssertEqual(split.status, 0, split.err)
        XCTAssertEqual(try layout(), "right")
        let whole = try d.lectern(["notes-layout", pdf, "whole"], name: "ana")   // named by its file
        XCTAssertEqual(whole.status, 0, whole.err)
        XCTAssertEqual(try layout(), "none")
        let beamer = try Fixtures.beamerNotesDeck(labels: ["1", "2"], in: d.dir, name: "talk.pdf")
        XCTAssertEqual(try d.lectern(["present", beamer], name: "ana").status, 0)
        XCTAssertEqual(try layout(), "right")
        let id = try d.lectern(["upload", beamer], name: "ana").out.trimmingCharacters(in: .whitespacesAndNewlines)
        let byID = try d.lectern(["notes-layout", String(id.suffix(64)), "whole"], name: "ana")
        XCTAssertEqual(byID.status, 0, byID.err)
        XCTAssertEqual(try layout(), "none")
        XCTAssertEqual(try d.lectern(["notes-layout", "--content", beamer, "detect"], name: "ana").status, 0)
        XCTAssertEqual(try layout(), "right")
        // Not a layout; someone who may not (bob: neither floor nor upload): refused, non-zero.
        let bad = try d.lectern(["notes-layout", "sideways"], name: "ana")
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.err.contains("whole, split"), bad.err)
        let other = try d.lectern(["notes-layout", "split"], name: "bob")   // not the uploader, no floor
        XCTAssertNotEqual(other.status, 0, other.err)
        XCTAssertEqual(try layout(), "right", "unchanged")
    }

    /// A banner stored by an older lecternd, whose description says "right" (width alone),
    /// is read again by today's rule once, when the store is listed at start.
    func testABannerStoredUnderTheOldRuleIsReadAgain() throws {
        let dir = Fixtures.tempDir("old-banner")
        let store = try ContentStore(dataDir: dir + "/data")
        let banner = try Self.wideDeck(width: 1200, height: 300, in: dir, name: "banner.pdf")
        let hex = try ContentStore.sha256(ofFile: banner)
        try FileManager.default.copyItem(atPath: banner, toPath: store.path(of: hex))
        let old = #"{"uploader":"","pages":1,"size":1,"kind":"pdf","name":"banner.pdf","id":"\#(hex)","deck":{"labels":["1"],"detectedLayout":"right","annotations":{}}}"#
        XCTAssertTrue(FileManager.default.createFile(atPath: store.path(of: hex) + ".json", contents: Data(old.utf8)))
        XCTAssertEqual(store.item(hex)?.deck?.detectedLayout, .right, "as the old rule stored it")
        XCTAssertEqual(store.entries().first?.console?.layout, NotesLayout.none)
        XCTAssertEqual(store.item(hex)?.deck?.detectedLayout, NotesLayout.none, "kept in its description")
        XCTAssertEqual(store.item(hex)?.deck?.layoutRule, DeckFacts.currentLayoutRule)
    }

    private func count(_ c: RGB, in f: Frame) -> Int {
        var n = 0
        for y in stride(from: 0, to: f.height, by: 2) {
            for x in stride(from: 0, to: f.width, by: 2) {
                let p = f.pixel(x: x, y: y)
                if abs(Int(p.r) - Int(c.r)) < 12, abs(Int(p.g) - Int(c.g)) < 12, abs(Int(p.b) - Int(c.b)) < 12 { n += 1 }
            }
        }
        return n
    }
}
