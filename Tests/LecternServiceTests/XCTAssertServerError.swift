import LecternClient
import LecternProtocol
import XCTest

func XCTAssertServerError<T>(
    _ code: ErrorCode, _ body: @autoclosure () throws -> T, _ message: String = "",
    file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertThrowsError(try body(), message, file: file, line: line) { error in
        guard let e = (error as? LecternConnection.ClientError)?.lecternError else {
            return XCTFail("not a server error: \(error)", file: file, line: line)
        }
        XCTAssertEqual(e.code, code, "\(message) — got \(e.code.name): \(e.message)", file: file, line: line)
    }
}
