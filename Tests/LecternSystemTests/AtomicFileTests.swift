import Foundation
import LecternModel
import LecternSystem
import XCTest

final class AtomicFileTests: XCTestCase {
    private var dir = ""
    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "lectern-atomic-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// Owner-only whatever the umask, and a second write replaces the first whole.
    func testWritesOwnerOnlyAndReplaces() throws {
        let path = dir + "/state.json"
        let old = umask(0)
        defer { umask(old) }
        try AtomicFile.write(Data("first".utf8), to: path)
        try AtomicFile.write(Data("second, longer".utf8), to: path)
        XCTAssertEqual(String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self), "second, longer")
        var st = stat()
        XCTAssertEqual(stat(path, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(".tmp") }
        XCTAssertEqual(leftovers, [], "no temp file stays behind")
    }

    /// A folder that isn't there gives an error naming the file, and writes nothing.
    func testAnUnwritablePlaceIsAnErrorNamingTheFile() throws {
        let path = dir + "/missing/state.json"
        XCTAssertThrowsError(try AtomicFile.write(Data("x".utf8), to: path)) { error in
            guard case ContentError.unreadable(let p, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(p, path)
            XCTAssertTrue(reason.contains("can't write"), reason)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }
}
