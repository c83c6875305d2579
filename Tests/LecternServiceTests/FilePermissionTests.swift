import Foundation
import LecternModel
import LecternProtocol
import LecternRoom
@testable import LecternService
import LecternTestSupport
import XCTest

/// What the service writes in its data directory is owner-only whatever the umask: the
/// stored files, partial uploads, and the state with the floor holder's resume token.
final class FilePermissionTests: XCTestCase {
    func mode(_ path: String) throws -> Int {
        try XCTUnwrap((try FileManager.default.attributesOfItem(atPath: path))[.posixPermissions] as? NSNumber).intValue & 0o777
    }

    func testDataFilesAreOwnerOnlyUnderAnOpenUmask() throws {
        let old = umask(0)
        defer { umask(old) }
        let dir = Fixtures.tempDir("perms")
        let store = try ContentStore(dataDir: dir + "/data")
        let item = try store.add(fileAt: try Fixtures.numberedDeck(count: 1, in: dir))
        let area = try UploadArea(dataDir: dir + "/data")
        let part = try area.open(String(repeating: "ab", count: 32), at: 0)
        try part.close()
        let writer = StateWriter(dataDir: dir + "/data")
        writer.save(SavedState(screen: CommittedScreen(page: 2), floor: Floor(config: FloorConfig(floorMode: .open, gracePeriod: 60, capacity: 10))))
        writer.flush()

        XCTAssertEqual(try mode(store.path(of: item.id)), 0o600, "a stored file")
        XCTAssertEqual(try mode(store.path(of: item.id) + ".json"), 0o600, "its description")
        XCTAssertEqual(try mode(area.partPath(String(repeating: "ab", count: 32))), 0o600, "a partial upload")
        XCTAssertEqual(try mode(StateWriter.path(dataDir: dir + "/data")), 0o600, "state.json")
        XCTAssertEqual(try mode(store.directory.path), 0o700)
        XCTAssertEqual(try mode(area.directory.path), 0o700)
    }
}
