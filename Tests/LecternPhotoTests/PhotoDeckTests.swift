import Foundation
import LecternModel
import LecternPhotos
import LecternPipeline
import LecternRender
import LecternTestSupport
import XCTest

/// Issue 29, must 4: photos and images made into a deck by the bounded child (`lecternd
/// --photo-deck`), read back with poppler and drawn by the wall's own pipeline at 1920×1080.
/// The files are made by real tools (ffmpeg, heif-enc, exiftool).
final class PhotoDeckTests: XCTestCase {
    let output = Compositor.Settings(width: 1920, height: 1080)

    func lecternd() throws -> String { try Fixtures.binary("lecternd") }

    /// The four quadrant colours at the centres of the quadrants of `rect` in `frame`.
    func assertQuadrants(_ frame: Frame, _ rect: PixelRect, tolerance: Int = 24, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let points = [(1, 1), (3, 1), (1, 3), (3, 3)].map { (rect.x + rect.width * $0.0 / 4, rect.y + rect.height * $0.1 / 4) }
        for (i, p) in points.enumerated() {
            let got = frame.pixel(x: p.0, y: p.1), want = Fixtures.quadrantColors[i]
            let d = max(abs(Int(got.r) - Int(want.r)), abs(Int(got.g) - Int(want.g)), abs(Int(got.b) - Int(want.b)))
            XCTAssertLessThanOrEqual(d, tolerance, "\(what): quadrant \(i + 1) at \(p) is \(got), not \(want)", file: file, line: line)
        }
    }

    /// Each format the issue names becomes a one-page deck whose page has the picture's
    /// aspect, shown upright and fitted like a page: a 4:3 picture on 1920×1080 fills
    /// 1440×1080 with 240-pixel bars.
    func testEachFormatBecomesOnePageOfItsAspectFittedWithBars() throws {
        let dir = Fixtures.tempDir("photos")
        let picture = Fixtures.quadrants(width: 800, height: 600)
        for name in ["q.jpg", "q.png", "q.webp", "q.gif", "q.heic"] {
            let file = try Fixtures.image(picture, in: dir, name: name)
            let pdf = dir + "/" + name + ".pdf"
            let made = try PhotoDeck.make([file], into: pdf, executable: lecternd())
            XCTAssertEqual(made.pages, 1, name)
            let doc = try PDFDocument(path: pdf)
            XCTAssertEqual(doc.pageCount, 1, name)
            let shape = try doc.shape(page: 1)
            XCTAssertEqual(shape.width / shape.height, 4.0 / 3.0, accuracy: 0.001, "\(name): the page has the picture's aspect")
            let frame = try Compositor.renderPage(doc, page: 1, settings: output)
            // GIF's 256-colour palette moves a colour a little further than JPEG's compression.
            assertQuadrants(frame, PixelRect(x: 240, y: 0, width: 1440, height: 1080), tolerance: name.hasSuffix(".gif") ? 40 : 24, name)
            XCTAssertTrue(frame.isUniform(PixelRect(x: 0, y: 0, width: 238, height: 1080), .black), "\(name): the left bar")
            XCTAssertTrue(frame.isUniform(PixelRect(x: 1682, y: 0, width: 238, height: 1080), .black), "\(name): the right bar")
        }
    }

    /// A phone's portrait photo: stored sideways with EXIF orientation 6. Shown upright, as
    /// a portrait page (3:4) in the middle of the wall.
    func testAJPEGWithEXIFOrientation6IsShownUpright() throws {
        let dir = Fixtures.tempDir("photos")
        let upright = Fixtures.quadrants(width: 600, height: 800)
        let file = try Fixtures.rotatedJPEG(upright, in: dir)
        let pdf = dir + "/portrait.pdf"
        _ = try PhotoDeck.make([file], into: pdf, executable: lecternd())
        let doc = try PDFDocument(path: pdf)
        let shape = try doc.shape(page: 1)
        XCTAssertEqual(shape.width / shape.height, 3.0 / 4.0, accuracy: 0.001, "portrait, as the phone was held")
        let frame = try Compositor.renderPage(doc, page: 1, settings: output)
        assertQuadrants(frame, PixelRect(x: 555, y: 0, width: 810, height: 1080), "the rotated JPEG")
    }

    /// A HEIC's EXIF orientation only repeats what its container's transforms say (which
    /// libheif applies): an iPhone-style HEIC is turned once, not twice.
    func testAnIPhoneStyleHEICIsTurnedOnceNotTwice() throws {
        let dir = Fixtures.tempDir("photos")
        let file = try Fixtures.iPhoneStyleHEIC(Fixtures.quadrants(width: 800, height: 600), in: dir)
        let pdf = dir + "/iphone.pdf"
        _ = try PhotoDeck.make([file], into: pdf, executable: lecternd())
        let doc = try PDFDocument(path: pdf)
        let shape = try doc.shape(page: 1)
        XCTAssertEqual(shape.width / shape.height, 4.0 / 3.0, accuracy: 0.001, "landscape, as it was taken")
        assertQuadrants(try Compositor.renderPage(doc, page: 1, settings: output), PixelRect(x: 240, y: 0, width: 1440, height: 1080), "the HEIC")
    }

    /// Several images become one deck, a page each, in the order given.
    func testThreeImagesBecomeOneDeckInTheOrderGiven() throws {
        let dir = Fixtures.tempDir("photos")
        let colours = [RGB(200, 20, 20), RGB(20, 200, 20), RGB(20, 20, 200)]
        let files = try [("c.jpg", 0), ("a.png", 1), ("b.heic", 2)].map { name, i in
            try Fixtures.image(Frame(width: 640, height: 360, color: colours[i]), in: dir, name: name)
        }
        var started: [Int] = []
        let pdf = dir + "/three.pdf"
        let made = try PhotoDeck.make(files, into: pdf, executable: lecternd()) { started.append($0) }
        XCTAssertEqual(made.pages, 3)
        XCTAssertEqual(started, [1, 2, 3], "progress for each image, in order")
        let doc = try PDFDocument(path: pdf)
        for page in 1...3 {
            let got = try Compositor.renderPage(doc, page: page, settings: output).pixel(x: 960, y: 540)
            let want = colours[page - 1]
            XCTAssertLessThanOrEqual(abs(Int(got.r) - Int(want.r)) + abs(Int(got.g) - Int(want.g)) + abs(Int(got.b) - Int(want.b)), 30, "page \(page)")
        }
    }

    /// An animated GIF shows its first frame.
    func testAnAnimatedGIFShowsItsFirstFrame() throws {
        let dir = Fixtures.tempDir("photos")
        let file = try Fixtures.animatedGIF(Fixtures.quadrants(width: 400, height: 300), Frame(width: 400, height: 300, color: .white), in: dir)
        let pdf = dir + "/gif.pdf"
        _ = try PhotoDeck.make([file], into: pdf, executable: lecternd())
        let frame = try Compositor.renderPage(PDFDocument(path: pdf), page: 1, settings: output)
        assertQuadrants(frame, PixelRect(x: 240, y: 0, width: 1440, height: 1080), "the first frame")
    }

    /// A PNG of a few dozen bytes claiming 100,000 × 100,000 pixels is refused from its
    /// header, naming the limit; no deck is left behind.
    func testADecompressionBombIsRefusedNamingTheLimit() throws {
        let dir = Fixtures.tempDir("photos")
        let bomb = try Fixtures.pngClaiming(width: 100_000, height: 100_000, in: dir)
        let pdf = dir + "/bomb.pdf"
        XCTAssertThrowsError(try PhotoDeck.make([bomb], into: pdf, executable: lecternd())) { error in
            guard case PhotoDeck.Failure.tooManyPixels(let index, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(index, 1)
            XCTAssertEqual(reason, "it is 100000 × 100000 pixels (10000 megapixels), more than the 250 megapixels an image may have")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: pdf), "nothing left behind")
    }

    /// A 48-megapixel photo (8000 × 6000) is made into a page within the child's budget: its
    /// peak stays under the memory limit, and the page is 3840 × 2880 pixels at most.
    func testA48MegapixelPhotoStaysWithinTheMemoryBound() throws {
        let dir = Fixtures.tempDir("photos")
        let big = try Fixtures.bigPhoto(width: 8000, height: 6000, in: dir)
        let pdf = dir + "/big.pdf"
        let limits = PhotoLimits()
        let made = try PhotoDeck.make([big], into: pdf, executable: lecternd(), limits: limits)
        XCTAssertEqual(made.pages, 1)
        print("48 MP photo: the child's peak resident memory \(made.childPeakBytes >> 20) MB (budget \(limits.memoryMB) MB beyond its libraries)")
        XCTAssertGreaterThan(made.childPeakBytes, 0)
        XCTAssertLessThan(made.childPeakBytes, limits.memoryMB << 20, "the child's peak")
        let frame = try Compositor.renderPage(PDFDocument(path: pdf), page: 1, settings: output)
        XCTAssertTrue(frame.isUniform(PixelRect(x: 0, y: 0, width: 238, height: 1080), .black), "4:3 with bars")
    }

    /// Past the child's memory budget the image is refused with the budget named (a budget
    /// below what a 48 MP photo needs stands in for a hostile file that needs too much).
    func testAnImagePastTheMemoryBudgetIsRefusedNamingIt() throws {
        let dir = Fixtures.tempDir("photos")
        let small = try Fixtures.image(Fixtures.quadrants(width: 64, height: 48), in: dir, name: "small.png")
        let big = try Fixtures.bigPhoto(width: 8000, height: 6000, in: dir)
        var limits = PhotoLimits()
        limits.memoryMB = 64
        XCTAssertThrowsError(try PhotoDeck.make([small, big], into: dir + "/x.pdf", executable: lecternd(), limits: limits)) { error in
            guard case PhotoDeck.Failure.overBudget(let index, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(index, 2, "the second image, the big one")
            XCTAssertEqual(reason, "decoding it needs more than the 64 MB of memory or 20 s of processor time an image may take")
        }
    }

    /// Files that are not images the appliance takes are refused as such, saying which:
    /// a PDF (libvips could read it, but its PDF loader is not allowed), a TIFF, text.
    func testWhatIsNotAnImageIsRefusedSayingWhich() throws {
        let dir = Fixtures.tempDir("photos")
        let photo = try Fixtures.image(Fixtures.quadrants(width: 64, height: 48), in: dir, name: "ok.jpg")
        let pdf = try Fixtures.numberedDeck(count: 1, in: dir)
        let tiff = try Fixtures.image(Fixtures.quadrants(width: 64, height: 48), in: dir, name: "scan.tiff")
        let text = dir + "/notes.txt"
        try Data("hello".utf8).write(to: URL(fileURLWithPath: text))
        for bad in [pdf, tiff, text] {
            XCTAssertThrowsError(try PhotoDeck.make([photo, bad], into: dir + "/x.pdf", executable: lecternd())) { error in
                XCTAssertEqual(error as? PhotoDeck.Failure, .notAnImage(index: 2), bad)
            }
        }
    }

    func testMoreImagesThanTheLimitAreRefusedBeforeAnyIsRead() throws {
        var limits = PhotoLimits()
        limits.maxImages = 2
        XCTAssertThrowsError(try PhotoDeck.make(["/nonexistent/a", "/b", "/c"], into: "/nonexistent/x.pdf", executable: lecternd(), limits: limits)) {
            XCTAssertEqual($0 as? PhotoDeck.Failure, .tooManyImages(count: 3, limit: 2))
        }
    }
}
