import Foundation
import LecternCore
import LecternVideo
import XCTest

final class ClipProbeTests: XCTestCase {
    func testNotAVideoIsRefused() throws {
        let path = NSTemporaryDirectory() + "not-a-clip-\(UUID().uuidString).mp4"
        try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try ClipProbe.probe(path: path)) { XCTAssertNotNil($0 as? ContentError) }
    }
}
