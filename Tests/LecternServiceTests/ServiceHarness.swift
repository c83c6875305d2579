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
        var c = Config()
        c.room = "Test Room"
        c.port = 0
        c.passcode = Self.presenterPass
        c.moderatorPasscode = Self.moderatorPass
        c.floor = floor
        c.dataDir = dir + "/data"
        c.display = "virtual"
        c.mode = "1920x1080@60"
        c.httpPort = nil   // no web remote: tests run side by side
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

    /// The frame the pipeline renders for a page of a file, to compare screenshots with.
    func expectedFrame(pdf: String, page: Int) throws -> Frame {
        try Compositor.renderPage(PDFDocument(path: pdf), page: page, settings: service.stage.compositor.settings)
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
