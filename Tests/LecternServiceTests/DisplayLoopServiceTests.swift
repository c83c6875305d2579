import Foundation
import LecternClient
import LecternModel
import LecternDisplay
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// The display loop inside the service (issue 26): nothing waits for the wall.
final class DisplayLoopServiceTests: XCTestCase {
    /// Issue 26's hang: the web port frees up while a clip plays. The web remote's retry
    /// (on the room's only event loop) puts the address on the idle screen; that used to wait
    /// for the stage, which the clip held, so no connection was answered until the clip
    /// ended (a looping one: never, while the watchdog stayed fed). A long clip, not a
    /// looping one, so that the old code's hang ends and the test fails instead of hanging.
    func testTheWebPortFreeingWhileAClipPlaysHangsNothing() throws {
        let taken = try TakenPort()
        let h = try ServiceHarness(floor: .open) { $0.httpPort = taken.port }
        let a = try h.presenter("A")
        _ = try a.requestFloor()
        let dir = Fixtures.tempDir("web-port-clip")
        let clip = try a.upload(path: try Fixtures.clip(in: dir, seconds: Double(Service.webRemoteRetrySeconds) * 3))
        _ = try a.request(.clipPlay(content: clip.content, loop: false))
        _ = try a.waitForState { $0.screen.clip?.state == .playing }
        XCTAssertNil(h.service.httpPort, "the port was taken: the web remote waits for it")
        taken.close()
        try eventually("the web remote to take its port", timeout: Double(Service.webRemoteRetrySeconds) + 10) { h.service.httpPort != nil }
        // The room answers at once, the clip still playing.
        a.timeout = 3
        let s = try a.state()
        XCTAssertEqual(s.screen.clip?.state, .playing, "the clip plays on")
        XCTAssertEqual(try a.request(.clipStop), .clipStopOK)
        a.timeout = 30
        _ = try a.waitForState { $0.screen.clip == nil }
    }
}

/// A listener on a free port of 127.0.0.1, until `close`.
final class TakenPort {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        guard bound == 0, listen(fd, 4) == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        port = Int(UInt16(bigEndian: addr.sin_port))
    }

    func close() { _ = Glibc.close(fd) }
}
