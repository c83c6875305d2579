import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// Issue 29, must 4, end to end: photos uploaded to a real service (TLS on, as shipped; the
/// virtual display at 1920×1080) over real sockets, converted by the image converter row in
/// its bounded child, and shown on the wall; the wall's frame is read back with a screenshot.
final class PhotoUploadTests: XCTestCase {
    func room() throws -> (ServiceHarness, LecternConnection) {
        let h = try ServiceHarness(floor: .open)
        let ana = try h.presenter("Ana")
        _ = try ana.requestFloor()
        return (h, ana)
    }

    /// The four quadrant colours at the centres of the quadrants of `rect` on the wall.
    func assertQuadrants(_ frame: Frame, _ rect: PixelRect, tolerance: Int = 24, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let points = [(1, 1), (3, 1), (1, 3), (3, 3)].map { (rect.x + rect.width * $0.0 / 4, rect.y + rect.height * $0.1 / 4) }
        for (i, p) in points.enumerated() {
            let got = frame.pixel(x: p.0, y: p.1), want = Fixtures.quadrantColors[i]
            let d = max(abs(Int(got.r) - Int(want.r)), abs(Int(got.g) - Int(want.g)), abs(Int(got.b) - Int(want.b)))
            XCTAssertLessThanOrEqual(d, tolerance, "\(what): quadrant \(i + 1) at \(p) is \(got), not \(want)", file: file, line: line)
        }
    }

    /// An iPhone-style HEIC (HEVC in HEIF from heif-enc, with the EXIF orientation an iPhone
    /// repeats beside the container's own) is a one-page deck, shown upright (turned once,
    /// not twice) and fitted with bars; the uploader heard the conversion's progress; the
    /// state says what it was.
    func testAnIPhoneStyleHEICIsShownOnTheWall() throws {
        let (h, ana) = try room()
        let file = try Fixtures.iPhoneStyleHEIC(Fixtures.quadrants(width: 1600, height: 1200), in: h.dir)
        var heard: [ConversionProgress] = []
        let stored = try ana.upload(path: file, converting: { heard.append($0) })
        XCTAssertEqual(stored.kind, .pdf)
        XCTAssertEqual(stored.pageCount, 1)
        XCTAssertEqual(heard.first?.format, "heif", "\(heard)")
        try ana.present(stored.content)
        let wall = try PNG.decode(ana.screenshot())
        assertQuadrants(wall, PixelRect(x: 240, y: 0, width: 1440, height: 1080), "the HEIC on the wall")
        XCTAssertTrue(wall.isUniform(PixelRect(x: 0, y: 0, width: 238, height: 1080), .black), "the bar")
        let s = try ana.state()
        XCTAssertEqual(s.screen.content?.convertedFrom, "heif")
    }

    /// A JPEG stored sideways with EXIF orientation 6 (a phone held upright) is shown
    /// upright, as a portrait page in the middle of the wall.
    func testAJPEGWithEXIFOrientation6IsShownUprightOnTheWall() throws {
        let (h, ana) = try room()
        let file = try Fixtures.rotatedJPEG(Fixtures.quadrants(width: 900, height: 1200), in: h.dir)
        let stored = try ana.upload(path: file)
        try ana.present(stored.content)
        let wall = try PNG.decode(ana.screenshot())
        assertQuadrants(wall, PixelRect(x: 555, y: 0, width: 810, height: 1080), "the rotated JPEG on the wall")
        XCTAssertTrue(wall.isUniform(PixelRect(x: 0, y: 0, width: 553, height: 1080), .black), "the left bar")
    }

    /// Three photos chosen together are one deck in the order chosen (images-deck): three
    /// pages, page n the n-th photo on the wall; the progress came with the request's tag.
    func testThreePhotosBecomeOneDeckInTheOrderChosen() throws {
        let (h, ana) = try room()
        let colours = [RGB(200, 30, 30), RGB(30, 190, 40), RGB(30, 50, 210)]
        let files = try ["c.jpg", "a.png", "b.heic"].enumerated().map { i, name in
            try Fixtures.image(Frame(width: 640, height: 480, color: colours[i]), in: h.dir, name: name)
        }
        let ids = try files.map { try ana.upload(path: $0).content }
        var heard: [ConversionProgress] = []
        let deck = try ana.imagesDeck(ids, name: "c.jpg and 2 more") { heard.append($0) }
        XCTAssertEqual(deck.pageCount, 3)
        XCTAssertFalse(heard.isEmpty, "conversion-progress while the deck is made")
        for page in 1...3 {
            try ana.present(deck.content, page: UInt32(page))
            let got = try PNG.decode(ana.screenshot()).pixel(x: 960, y: 540), want = colours[page - 1]
            XCTAssertLessThanOrEqual(
                abs(Int(got.r) - Int(want.r)) + abs(Int(got.g) - Int(want.g)) + abs(Int(got.b) - Int(want.b)), 30, "page \(page) is photo \(page)")
        }
        XCTAssertEqual(try ana.state().screen.content?.name, "c.jpg and 2 more")
        // The same photos in the same order again: the same deck, at once.
        XCTAssertEqual(try ana.imagesDeck(ids, name: "again").content, deck.content)
    }

    /// images-deck refuses what it can't make, saying why: a PDF among the images (its
    /// position), an upload of another device, too many images.
    func testImagesDeckRefusesWhatIsNotTheCallersImages() throws {
        let (h, ana) = try room()
        let photo = try ana.upload(path: try Fixtures.image(Fixtures.quadrants(width: 64, height: 48), in: h.dir, name: "p.png")).content
        let pdf = try ana.upload(path: try Fixtures.numberedDeck(count: 1, in: h.dir)).content
        XCTAssertThrowsError(try ana.imagesDeck([photo, pdf], name: "mixed")) { error in
            let e = (error as? LecternConnection.ClientError)?.lecternError
            XCTAssertEqual(e?.code, .notAnImage)
            XCTAssertEqual(e?.detail, 2, "the position of the one that isn't")
        }
        let bob = try h.presenter("Bob")
        XCTAssertThrowsError(try bob.imagesDeck([photo, photo], name: "not mine")) {
            XCTAssertEqual(($0 as? LecternConnection.ClientError)?.lecternError?.code, .notYourContent)
        }
        XCTAssertThrowsError(try ana.imagesDeck(Array(repeating: photo, count: 101), name: "many")) {
            let e = ($0 as? LecternConnection.ClientError)?.lecternError
            XCTAssertEqual(e?.code, .tooManyImages)
            XCTAssertEqual(e?.message, "A deck of images takes at most 100 of them (101 were chosen) — choose fewer.")
        }
    }

    /// A PNG of a few dozen bytes claiming 100,000 × 100,000 pixels is refused at its
    /// upload-finish with the limit named; nothing is kept, the service did not grow, and the
    /// deck on the wall still turns.
    func testADecompressionBombIsRefusedNamingTheLimitAndTheServiceIsUnharmed() throws {
        let (h, ana) = try room()
        let plain = try Fixtures.numberedDeck(count: 2, in: h.dir)
        let deck = try ana.upload(path: plain)
        try ana.present(deck.content, page: 1)
        let bomb = try Fixtures.pngClaiming(width: 100_000, height: 100_000, in: h.dir)
        PeakResident.reset()
        let before = PeakResident.current
        XCTAssertThrowsError(try ana.upload(path: bomb)) { error in
            let e = (error as? LecternConnection.ClientError)?.lecternError
            XCTAssertEqual(e?.code, .imageTooLarge)
            XCTAssertEqual(e?.detail, 250)
            XCTAssertEqual(
                e?.message,
                "bomb.png can't be shown: it is 100000 × 100000 pixels (10000 megapixels), more than the 250 megapixels an image may have — save a smaller copy and upload that."
            )
        }
        XCTAssertLessThan(PeakResident.bytes - before, 50 << 20, "the service grew by \((PeakResident.bytes - before) >> 20) MB")
        XCTAssertNil(h.service.store.item(try ContentStore.sha256(ofFile: bomb)), "nothing kept")
        try ana.present(deck.content, page: 2)
        let shot = try PNG.decode(ana.screenshot())
        XCTAssertEqual(PixelCompare.differingPixels(shot, try h.expectedFrame(pdf: plain, page: 2)), 0, "page 2 on the wall")
    }

    /// A 48-megapixel photo (8000 × 6000) goes on the wall with the service's peak growing
    /// little (the decoding is the child's) and the child within its budget.
    func testA48MegapixelPhotoGoesOnTheWallWithinTheMemoryBound() throws {
        let (h, ana) = try room()
        let big = try Fixtures.bigPhoto(width: 8000, height: 6000, in: h.dir)
        PeakResident.reset()
        let before = PeakResident.current
        let stored = try ana.upload(path: big)
        let growth = PeakResident.bytes - before
        print("48 MP photo: the service's peak grew by \(growth >> 20) MB while it was uploaded and converted")
        XCTAssertLessThan(growth, 64 << 20, "the service's peak")
        try ana.present(stored.content)
        let wall = try PNG.decode(ana.screenshot())
        XCTAssertTrue(wall.isUniform(PixelRect(x: 0, y: 0, width: 238, height: 1080), .black), "4:3, with bars")
        XCTAssertFalse(wall.isUniform(PixelRect(x: 240, y: 0, width: 1440, height: 1080), .black), "the photo")
    }
}
