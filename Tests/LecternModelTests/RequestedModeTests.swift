import LecternModel
import XCTest

/// What an admin asks for (`display.mode`, `--mode`) against what a display has: a mode
/// written without a rate is not one written "@60".
final class RequestedModeTests: XCTestCase {
    func testARateIsKeptOnlyWhenWritten() {
        XCTAssertEqual(RequestedMode(parsing: "1280x720"), RequestedMode(width: 1280, height: 720, refresh: nil))
        XCTAssertEqual(RequestedMode(parsing: "1280×720@50"), RequestedMode(width: 1280, height: 720, refresh: 50))
        XCTAssertNotEqual(RequestedMode(parsing: "1280x720"), RequestedMode(parsing: "1280x720@60"))
        XCTAssertEqual(RequestedMode(parsing: "1280x720")?.description, "1280x720")
        XCTAssertEqual(RequestedMode(parsing: "1920x1080@59.94")?.description, "1920x1080@59.94")
        for bad in ["", "1280", "1280x", "x720", "8x8", "1280x720@0", "1280x720@", "1280x720@60@60", "big"] {
            XCTAssertNil(RequestedMode(parsing: bad), bad)
        }
    }

    func testWithoutARateAnyRateAtThatSizeMatches() {
        let any = RequestedMode(width: 1280, height: 720)
        XCTAssertTrue(any.matches(width: 1280, height: 720, refresh: 50))
        XCTAssertTrue(any.matches(width: 1280, height: 720, refresh: 60))
        XCTAssertFalse(any.matches(width: 1280, height: 1024, refresh: 60))
        let sixty = RequestedMode(width: 1280, height: 720, refresh: 60)
        XCTAssertFalse(sixty.matches(width: 1280, height: 720, refresh: 50), "@60 asks for 60 Hz, not any rate")
        XCTAssertTrue(sixty.matches(width: 1280, height: 720, refresh: 60))
        XCTAssertTrue(RequestedMode(width: 1920, height: 1080, refresh: 59.94).matches(width: 1920, height: 1080, refresh: 60))
    }

    /// An output with no modes of its own (the virtual display) runs at 60 Hz unless told.
    func testTheVirtualDisplaysModeTakes60HzWhenNoRateIsAsked() {
        XCTAssertEqual(RequestedMode(width: 1024, height: 768).displayMode, DisplayMode(width: 1024, height: 768, refresh: 60))
        XCTAssertEqual(RequestedMode(width: 1024, height: 768, refresh: 75).displayMode, DisplayMode(width: 1024, height: 768, refresh: 75))
    }
}
