import XCTest
@testable import LecternProtocol

final class ProtocolVersionTests: XCTestCase {
    func testVersionIsOne() { XCTAssertEqual(lecternProtocolVersion, 1) }
}
