import LecternProtocol
import XCTest

/// Asserts that `body` throws a `LecternError` with `code`.
public func assertThrowsCode<T>(_ code: ErrorCode, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> T) {
    do {
        _ = try body()
        XCTFail("expected error \(code), got success", file: file, line: line)
    } catch let e as LecternError {
        XCTAssertEqual(e.code, code, "\(e.message)", file: file, line: line)
    } catch {
        XCTFail("expected LecternError \(code), got \(error)", file: file, line: line)
    }
}
