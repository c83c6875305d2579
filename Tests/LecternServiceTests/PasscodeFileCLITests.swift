import Foundation
import LecternTestSupport
import XCTest

/// A passcode file that can't be read is an error naming it, for every role: a viewer's
/// `--passcode-file` used to fall back silently to the environment.
final class PasscodeFileCLITests: XCTestCase {
    func testAnUnreadablePasscodeFileIsAnErrorForEveryRole() throws {
        let d = try CLITests.Daemon(extra: "audience = \"open\"")
        let missing = d.dir + "/no-such-passcode"
        for role in [[], ["--viewer"], ["--moderator", "--moderator-passcode-file", missing]] {
            let r = try d.lecternExactly(["status", "--port", "\(d.port)", "--passcode-file", missing] + role)
            XCTAssertEqual(r.status, 1, "\(role): \(r.out) \(r.err)")
            XCTAssertTrue(r.err.contains("Can't read the passcode file \(missing)"), "\(role): \(r.err)")
        }
        // Without the option an open audience needs no passcode at all.
        let open = try d.lecternExactly(["status", "--port", "\(d.port)", "--viewer"])
        XCTAssertEqual(open.status, 0, open.err)
    }
}
