import Foundation
import LecternModel
import XCTest

/// The enums the config file, the content store and the wire share keep their values.
final class SharedEnumTests: XCTestCase {
    func testContentKindWireAndJSONValues() throws {
        XCTAssertEqual(ContentKind.pdf.rawValue, 1)
        XCTAssertEqual(ContentKind.clip.rawValue, 2)
        XCTAssertEqual(ContentKind(rawValue: 0), nil)
        XCTAssertEqual(String(decoding: try JSONEncoder().encode([ContentKind.pdf, .clip]), as: UTF8.self), #"["pdf","clip"]"#)
        XCTAssertEqual(try JSONDecoder().decode([ContentKind].self, from: Data(#"["clip","pdf"]"#.utf8)), [.clip, .pdf])
        XCTAssertThrowsError(try JSONDecoder().decode([ContentKind].self, from: Data(#"["png"]"#.utf8)))
        XCTAssertEqual("\(ContentKind.pdf) \(ContentKind.clip)", "pdf clip")
    }

    func testFloorModeConfigAndJSONValues() throws {
        XCTAssertEqual(FloorMode(rawValue: "open"), .open)
        XCTAssertEqual(FloorMode(rawValue: "moderated"), .moderated)
        XCTAssertNil(FloorMode(rawValue: "Open"))
        XCTAssertEqual(String(decoding: try JSONEncoder().encode([FloorMode.open, .moderated]), as: UTF8.self), #"["open","moderated"]"#)
        XCTAssertEqual(Config().floor, .moderated)
    }
}
