import Foundation
import Glibc
@testable import LecternService
import LecternTestSupport
import XCTest

/// The watchdog's test hook (docs/image.md, "Test hooks"): armed only by the environment,
/// root's own files, and this process's id.
final class PresentStallHookTests: XCTestCase {
    func hooks() throws -> String {
        let dir = Fixtures.tempDir("stall-hook") + "/hooks"
        XCTAssertEqual(mkdir(dir, 0o755), 0)
        return dir
    }

    func testOffWithoutTheEnvironment() throws {
        let dir = try hooks()
        try "\(getpid())".write(toFile: dir + "/stall-presents", atomically: false, encoding: .utf8)
        let hook = PresentStallHook(environment: [:], pid: getpid())
        XCTAssertNil(hook.file)
        XCTAssertFalse(hook.armed())
    }

    func testArmedOnlyForTheProcessNamedInRootsFile() throws {
        guard getuid() == 0 else { return XCTFail("the hook wants root's files: run as root (make test does, as CI)") }
        let dir = try hooks()
        let env = ["LECTERN_TEST_HOOKS": dir]
        XCTAssertFalse(PresentStallHook(environment: env, pid: 4242).armed(), "no file: not armed")
        try "4242\n".write(toFile: dir + "/stall-presents", atomically: false, encoding: .utf8)
        chmod(dir + "/stall-presents", 0o644)
        XCTAssertTrue(PresentStallHook(environment: env, pid: 4242).armed())
        XCTAssertFalse(PresentStallHook(environment: env, pid: 4243).armed(), "another process (the restarted service) is not stalled")
        chmod(dir + "/stall-presents", 0o666)
        XCTAssertFalse(PresentStallHook(environment: env, pid: 4242).armed(), "a file others may write is ignored")
        chmod(dir + "/stall-presents", 0o644)
        chmod(dir, 0o777)
        XCTAssertFalse(PresentStallHook(environment: env, pid: 4242).armed(), "a directory others may write is ignored")
        chmod(dir, 0o755)
        XCTAssertEqual(chown(dir + "/stall-presents", 1000, 1000), 0)
        XCTAssertFalse(PresentStallHook(environment: env, pid: 4242).armed(), "a file of another user is ignored")
        XCTAssertFalse(PresentStallHook(environment: ["LECTERN_TEST_HOOKS": "relative/dir"], pid: 4242).armed())
    }
}
