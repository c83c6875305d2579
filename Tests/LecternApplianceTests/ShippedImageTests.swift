import Foundation
import LecternTestSupport
import XCTest

/// What ships has no test hooks (docs/image.md, "Test hooks"): the image `make image` builds
/// has no command agent (only build-image's test flavour lays `test-rootfs/` over it, and
/// only the image tests ask for it), and lecternd's stalled-presents hook is compiled only
/// with LECTERN_TEST_HOOKS (debug builds, the image tests' release build). The image tests
/// boot the test flavour and use both.
final class ShippedImageTests: XCTestCase {
    func files(under relative: String) throws -> [String] {
        let root = Repository.path(relative)
        return try XCTUnwrap(FileManager.default.enumerator(atPath: root)).compactMap { $0 as? String }
    }

    func testTheShippedOverlayHasNoTestAgentAndTheTestOverlayHasIt() throws {
        let shipped = try files(under: "board/image/rootfs")
        XCTAssertFalse(shipped.contains { $0.contains("test-agent") }, "\(shipped)")
        let test = try files(under: "board/image/test-rootfs")
        XCTAssertTrue(test.contains("usr/lib/lectern-image/test-agent"), "\(test)")
        XCTAssertTrue(test.contains("usr/lib/systemd/system/lectern-test-agent.service"), "\(test)")
        let customize = try String(contentsOfFile: Repository.path("board/image/customize"), encoding: .utf8)
        // Every line that uses the test overlay or the agent is inside `if [[ "$flavour" == test ]]`.
        var open: [String] = []
        var uses = 0
        for raw in customize.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") { continue }
            if line.hasPrefix("if ") { open.append(line) }
            if line == "fi" { open.removeLast() }
            if line.contains("test-rootfs") || line.contains("lectern-test-agent") {
                uses += 1
                XCTAssertTrue(open.contains("if [[ \"$flavour\" == test ]]; then"), "customize, outside the test flavour: \(line)")
            }
        }
        XCTAssertEqual(uses, 2, "the overlay laid and the agent enabled")
    }

    func testOnlyTheImageTestsBuildTheTestFlavourAndTheHooks() throws {
        let makefile = try String(contentsOfFile: Repository.path("Makefile"), encoding: .utf8)
        XCTAssertFalse(makefile.contains("--flavour test"), "make image builds the image as it ships")
        XCTAssertFalse(makefile.contains("LECTERN_TEST_HOOKS"), "make deb and make image build without the test hooks")
        let testImage = try String(contentsOfFile: Repository.path("board/image/test-image"), encoding: .utf8)
        let builds = testImage.split(separator: "\n").filter { $0.contains("exec \"$here/build-image\"") }
        XCTAssertEqual(builds.count, 3)
        for b in builds { XCTAssertTrue(b.contains("--flavour test"), String(b)) }
        XCTAssertTrue(testImage.contains("-Xswiftc -DLECTERN_TEST_HOOKS"), "the image tests' release build has the stalled-presents hook")
        let package = try String(contentsOfFile: Repository.path("Package.swift"), encoding: .utf8)
        XCTAssertTrue(package.contains(".define(\"LECTERN_TEST_HOOKS\", .when(configuration: .debug))"))
        // Found by name: the service's files live in folders by concern.
        let service = Repository.path("Sources/LecternService")
        let found = FileManager.default.enumerator(atPath: service)?.compactMap { $0 as? String }
            .first { ($0 as NSString).lastPathComponent == "PresentStallHook.swift" }
        let hookPath = try XCTUnwrap(found, "PresentStallHook.swift under Sources/LecternService")
        let hook = try String(contentsOfFile: service + "/" + hookPath, encoding: .utf8)
        XCTAssertTrue(hook.hasPrefix("#if LECTERN_TEST_HOOKS\n") && hook.hasSuffix("#endif\n"), "the hook is compiled only with LECTERN_TEST_HOOKS")
    }
}
