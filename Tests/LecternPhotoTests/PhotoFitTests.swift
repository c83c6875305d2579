import LecternModel
import LecternPhotos
import XCTest

/// The pure sizes of a photo's page.
final class PhotoFitTests: XCTestCase {
    func testTheBoxFollowsTheUprightPicturesShape() {
        XCTAssertTrue(PhotoFit.box(width: 4000, height: 3000, long: 3840, short: 2160) == (3840, 2160))
        XCTAssertTrue(PhotoFit.box(width: 3000, height: 4000, long: 3840, short: 2160) == (2160, 3840))
        XCTAssertTrue(PhotoFit.box(width: 500, height: 500, long: 3840, short: 2160) == (3840, 2160), "a square counts as landscape")
    }

    func testOrientations5To8TurnAQuarter() {
        for o in 1...4 { XCTAssertTrue(PhotoFit.upright(width: 4, height: 3, orientation: o) == (4, 3), "\(o)") }
        for o in 5...8 { XCTAssertTrue(PhotoFit.upright(width: 4, height: 3, orientation: o) == (3, 4), "\(o)") }
    }

    func testThePageHasThePicturesAspectAndALongerSideOf960Points() {
        XCTAssertTrue(PhotoFit.page(width: 4000, height: 3000) == (960, 720))
        XCTAssertTrue(PhotoFit.page(width: 1080, height: 1920) == (540, 960))
        let odd = PhotoFit.page(width: 1001, height: 333)
        XCTAssertEqual(odd.width / odd.height, 1001.0 / 333.0, accuracy: 1e-9)
    }

    func testTheFormatsRowsName() {
        XCTAssertEqual(ImageFormat.names, "JPEG, PNG, WebP, GIF and HEIC/HEIF")
        XCTAssertEqual(ImageFormat(loaderClass: "VipsForeignLoadJpegFile"), .jpeg)
        XCTAssertEqual(ImageFormat(loaderClass: "VipsForeignLoadHeifFile"), .heif)
        XCTAssertNil(ImageFormat(loaderClass: "VipsForeignLoadTiffFile"))
        XCTAssertNil(ImageFormat(loaderClass: ""))
    }
}
