import Foundation
import LecternClient
import LecternCore
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// A real service in this process: virtual display, real TCP on 127.0.0.1 (any free port),
/// a fresh data directory.
final class Harness {
    static let presenterPass = "presenter-pass-1"
    static let moderatorPass = "moderator-pass-1"
    let service: Service
    let dir: String
    var port: Int { service.port }

    init(floor: Config.FloorMode = .moderated, tweak: (inout Config) -> Void = { _ in }) throws {
        dir = Fixtures.tempDir("svc")
        var c = Config.testRoom(dataDir: dir + "/data", floor: floor,
                                passcode: Self.presenterPass, moderatorPasscode: Self.moderatorPass)
        tweak(&c)
        var o = Service.Options(config: c)
        o.host = "127.0.0.1"
        service = Service(options: o)
        try service.start()
    }

    deinit { service.stop() }

    func connect() throws -> LecternConnection { try LecternConnection(host: "127.0.0.1", port: port) }

    func presenter(_ name: String) throws -> LecternConnection {
        let c = try connect()
        try c.register(name: name, role: .presenter, passcode: Self.presenterPass)
        return c
    }

    func moderator(_ name: String = "Mod") throws -> LecternConnection {
        let c = try connect()
        try c.register(name: name, role: .moderator, passcode: Self.moderatorPass)
        return c
    }

    /// The frame the pipeline renders for a page of a file, at the output's size or another
    /// (a preview's), to compare screenshots with.
    func expectedFrame(pdf: String, page: Int, width: Int? = nil, height: Int? = nil) throws -> Frame {
        let s = service.stage.compositor.settings
        return try Compositor.renderPage(PDFDocument(path: pdf), page: page,
                                         settings: s.sized(width: width ?? s.width, height: height ?? s.height))
    }
}

func XCTAssertServerError<T>(_ code: ErrorCode, _ body: @autoclosure () throws -> T, _ message: String = "",
                             file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertThrowsError(try body(), message, file: file, line: line) { error in
        guard let e = (error as? LecternConnection.ClientError)?.lecternError else {
            return XCTFail("not a server error: \(error)", file: file, line: line)
        }
        XCTAssertEqual(e.code, code, "\(message) — got \(e.code.name): \(e.message)", file: file, line: line)
    }
}
