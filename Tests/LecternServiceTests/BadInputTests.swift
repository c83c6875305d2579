import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// Garbage on the wire gets its error, the sender is dropped where the protocol says so,
/// and nobody else notices: another client keeps working and the screen doesn't change.
final class BadInputTests: XCTestCase {
    func setUpRoom() throws -> (ServiceHarness, LecternConnection, Frame) {
        let h = try ServiceHarness(floor: .open) { $0.keepaliveTimeout = 3 }
        let a = try h.presenter("A")
        _ = try a.requestFloor()
        let pdf = try Fixtures.numberedDeck(count: 3, in: Fixtures.tempDir("bad"))
        try a.present(try a.upload(path: pdf).content, page: 2)
        return (h, a, try PNG.decode(a.screenshot()))
    }

    func assertUnaffected(_ a: LecternConnection, _ screen: Frame, file: StaticString = #filePath, line: UInt = #line) throws {
        try a.control(.next)
        XCTAssertEqual(try a.state().screen.page, 3, file: file, line: line)
        try a.control(.prev)
        XCTAssertEqual(PixelCompare.differingPixels(try PNG.decode(a.screenshot()), screen), 0, file: file, line: line)
    }

    /// Reads what the service sends a raw socket until it closes; returns the errors in it.
    func errorsUntilClosed(_ sock: RawSocket, timeout: Double) -> (errors: [LecternError], closed: Bool) {
        var decoder = FrameDecoder()
        var errors: [LecternError] = []
        // Each check waits on the socket itself (no pause between checks); a time-out is
        // reported by the caller's assertion on `closed`.
        var closed = false
        try? eventually("the service to close the connection", timeout: timeout, interval: 0) {
            guard let chunk = sock.receive(timeout: 0.25) else { return false }
            if chunk.isEmpty { closed = true; return true }
            decoder.feed(chunk)
            while let f = try? decoder.next() {
                if let m = try? Message.decode(f, sentBy: .server), let e = m.error { errors.append(e) }
            }
            return false
        }
        return (errors, closed)
    }

    func testRandomBytes() throws {
        let (h, a, screen) = try setUpRoom()
        let evil = try h.raw()
        var g = SystemRandomNumberGenerator()
        // A header whose length can't be (3 < 8), then noise.
        var bytes: [UInt8] = [0x0C, 0xFF, 0, 0, 0, 0, 0, 3]
        bytes += (0..<4096).map { _ in UInt8.random(in: 0...255, using: &g) }
        evil.send(bytes)
        let r = errorsUntilClosed(evil, timeout: 10)
        XCTAssertEqual(r.errors.map(\.code), [.malformedFrame])
        XCTAssertTrue(r.closed, "the sender of garbage is still connected")
        try assertUnaffected(a, screen)
    }

    func testPureNoiseNeverCrashesOrTouchesTheScreen() throws {
        let (h, a, screen) = try setUpRoom()
        var g = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let evil = try h.raw()
            evil.send((0..<Int.random(in: 1...3000, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) })
            evil.close()
        }
        try assertUnaffected(a, screen)
    }

    func testA4GBLengthGetsFrameTooLargeAtOnce() throws {
        let (h, a, screen) = try setUpRoom()
        let evil = try h.raw()
        evil.send([0x30, 0xFF, 0x00, 0x05, 0xFF, 0xFF, 0xFF, 0xFF])
        let r = errorsUntilClosed(evil, timeout: 10)
        XCTAssertEqual(r.errors.map(\.code), [.frameTooLarge])
        XCTAssertTrue(r.closed)
        try assertUnaffected(a, screen)
    }

    func testHalfAFrameFromASilentPeerTimesOut() throws {
        let (h, a, screen) = try setUpRoom()
        let evil = try h.raw()
        // A present (44 bytes) cut after 20, and then silence, as from a phone that died:
        // the service drops the peer at the keep-alive time-out (3 s here) with timedOut.
        let frame = Message.present(content: ContentHasher.id(of: [1, 2, 3]), page: 1).encode(tag: 9, deviceID: 0xFF)
        evil.send(Array(frame.prefix(20)))
        try assertUnaffected(a, screen)
        let r = errorsUntilClosed(evil, timeout: 15)
        XCTAssertEqual(r.errors.map(\.code), [.timedOut])
        XCTAssertTrue(r.closed)
        try assertUnaffected(a, screen)
    }

    func testUnknownCommandKeepsTheConnection() throws {
        let (h, a, screen) = try setUpRoom()
        let c = try h.presenter("B")
        c.sendRaw([0x42, c.deviceID, 0x00, 0x11, 0, 0, 0, 8])
        XCTAssertServerError(.unknownCommand, try c.reply(tag: 0x11))
        XCTAssertTrue(c.isOpen)
        _ = try c.state()
        // A wrong device byte is refused, nothing else happens.
        c.sendRaw(Message.control(.next).encode(tag: 0x12, deviceID: 77))
        XCTAssertServerError(.wrongDeviceID, try c.reply(tag: 0x12))
        // Requests before registering.
        let anon = try h.connect()
        XCTAssertServerError(.notRegistered, try anon.request(.stateRequest))
        try assertUnaffected(a, screen)
    }

    func testClipControlsWithNoClipSayThereIsNone() throws {
        let (h, a, _) = try setUpRoom()
        defer { withExtendedLifetime(h) {} }
        XCTAssertServerError(.noClip, try a.request(.clipPause))
        XCTAssertServerError(.noClip, try a.request(.clipSeek(positionMs: 1000)))
    }
}
