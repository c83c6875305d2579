import LecternRender
import XCTest

final class QRCodeTests: XCTestCase {
    func testEncodesAURL() throws {
        let q = try XCTUnwrap(QRCode("http://192.0.2.7:8080/"))
        XCTAssertGreaterThanOrEqual(q.size, 21)
    }
}
