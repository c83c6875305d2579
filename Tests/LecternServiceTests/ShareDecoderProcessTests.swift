import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
import LecternTestSupport
import XCTest

/// Each share is decoded in a process of its own (docs/protocol.md §29.6): a decoder that
/// crashes or stalls ends that share alone, with its error; the wall, the other pane and the
/// service go on. Against a real service over real TLS sockets, with real signals to the
/// real decoder process.
final class ShareDecoderProcessTests: XCTestCase {
    /// A split: Ana's deck on page 2 in pane 0, Ben's green share live in pane 1.
    struct Room {
        let h: ServiceHarness
        let ana: LecternConnection
        let ben: LecternConnection
        let green: [AnnexBSplitter.Unit]
        /// Pane 0's pixels with the share live beside it.
        let left: Frame
    }

    static func room(_ tweak: (inout Config) -> Void = { _ in }) throws -> Room {
        let h = try ServiceHarness(floor: .moderated, tweak: tweak)
        let mod = try h.moderator()
        let ana = try h.presenter("Ana")
        let ben = try h.presenter("Ben")
        _ = try ana.requestFloor()
        try mod.moderate(.grant, target: ana.deviceID)
        let deck = try ana.upload(path: try Fixtures.numberedDeck(count: 3, in: h.dir)).content
        try ana.present(deck, page: 2)
        _ = try mod.request(.layoutSet(.split))
        _ = try mod.request(.paneSet(PaneRequest(pane: 1, .assign(ben.deviceID))))
        let green = try ShareOverTCPTests.units(
            try Fixtures.annexB(in: h.dir, width: 640, height: 360, frames: 60, fps: 30, color: "lime", keyEvery: 10))
        try share(green, by: ben)
        try eventually("Ana's page 2 in pane 0", timeout: 10, interval: 0.1) { try ana.state().layout?.panes[0].screen.page == 2 }
        return Room(h: h, ana: ana, ben: ben, green: green, left: ShareOverTCPTests.leftHalf(try ShareOverTCPTests.wall(ana)))
    }

    static func share(_ green: [AnnexBSplitter.Unit], by ben: LecternConnection) throws {
        let ready = try ben.beginShare(ShareConfig(codec: .h264, width: 640, height: 360, frameRate: 30, bitrate: 2_000_000))
        XCTAssertEqual(ready.pane, 1)
        ShareOverTCPTests.send(green.prefix(30).map { ($0.bytes, $0.key) }, on: ben, fps: 30)
        try eventually("Ben's green in pane 1", timeout: 10, interval: 0.1) {
            ShareOverTCPTests.isColour(try ShareOverTCPTests.wall(ben).pixel(x: 1440, y: 540), r: 0, g: 255, b: 0)
        }
    }

    /// Ben's share ended with `code`; pane 1 shows its screen again; pane 0 is the same to
    /// the pixel and Ana still turns pages; the service answers.
    static func assertOnlyTheShareEnded(_ r: Room, _ code: ErrorCode, mentioning words: String) throws {
        let ended = try ShareOverTCPTests.waitFor(r.ben, "Ben's share-ended", timeout: 15) { if case .ended = $0 { return true } else { return false } }
        guard case .ended(let e) = ended else { return XCTFail() }
        XCTAssertEqual(e.code, code, e.message)
        XCTAssertTrue(e.message.contains(words), "'\(e.message)' says why (\(words))")
        try eventually("pane 1 back to its screen", timeout: 5, interval: 0.1) {
            !ShareOverTCPTests.isColour(try ShareOverTCPTests.wall(r.ben).pixel(x: 1440, y: 540), r: 0, g: 255, b: 0)
        }
        XCTAssertNil(try r.ben.state().shares)
        XCTAssertEqual(PixelCompare.differingPixels(ShareOverTCPTests.leftHalf(try ShareOverTCPTests.wall(r.ana)), r.left), 0, "Ana's pane untouched")
        XCTAssertTrue(try r.ana.request(.ping(nonce: 7)) == .pong(nonce: 7), "the service is alive")
        try r.ana.control(.next)
        try eventually("Ana's page 3", timeout: 10, interval: 0.1) { try r.ana.state().layout?.panes[0].screen.page == 3 }
    }

    static func isGone(_ pid: Int32) -> Bool { kill(pid, 0) != 0 && errno == ESRCH }

    func testTheDecoderIsAProcessOfItsOwnWithLimits() throws {
        let r = try Self.room()
        let pids = r.h.service.shareDecoderProcessIDs
        XCTAssertEqual(pids.count, 1)
        let pid = try XCTUnwrap(pids.first)
        XCTAssertNotEqual(pid, getpid())
        let cmdline = try String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)
        XCTAssertTrue(cmdline.contains("--share-decoder"), cmdline)
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let address = try XCTUnwrap(limits.split(separator: "\n").first { $0.hasPrefix("Max address space") })
        XCTAssertFalse(address.contains("unlimited"), "its memory is limited: \(address)")
        let cpu = try XCTUnwrap(limits.split(separator: "\n").first { $0.hasPrefix("Max cpu time") })
        XCTAssertFalse(cpu.split(separator: " ").dropFirst(3).first == "unlimited", "its CPU time is limited: \(cpu)")
        // Stopping the share ends its process.
        _ = try r.ben.request(.share(.control(.stop)))
        try eventually("the decoder process gone", timeout: 5, interval: 0.05) { Self.isGone(pid) }
        XCTAssertEqual(r.h.service.shareDecoderProcessIDs, [])
    }

    func testADecoderThatCrashesEndsOnlyItsShare() throws {
        let r = try Self.room()
        let pid = try XCTUnwrap(r.h.service.shareDecoderProcessIDs.first)
        // The decoder crashes on the next picture it is sent (as a hostile stream would make it).
        XCTAssertEqual(kill(pid, SIGSEGV), 0)
        ShareOverTCPTests.send(r.green[30...].prefix(10).map { ($0.bytes, $0.key) }, on: r.ben, fps: 30, from: 30)
        try Self.assertOnlyTheShareEnded(r, .shareDamaged, mentioning: "Segmentation fault")
        try eventually("the crashed decoder reaped", timeout: 5, interval: 0.05) { Self.isGone(pid) }
        // Ben shares again: a new decoder process, the picture back.
        try Self.share(r.green, by: r.ben)
        let again = try XCTUnwrap(r.h.service.shareDecoderProcessIDs.first)
        XCTAssertNotEqual(again, pid)
    }

    func testADecoderThatStallsIsKilledAndEndsOnlyItsShare() throws {
        let r = try Self.room { $0.share.stallSeconds = 1 }
        let pid = try XCTUnwrap(r.h.service.shareDecoderProcessIDs.first)
        // The decoder stops answering (as one looping in a hostile stream would).
        XCTAssertEqual(kill(pid, SIGSTOP), 0)
        ShareOverTCPTests.send(r.green[30...].prefix(10).map { ($0.bytes, $0.key) }, on: r.ben, fps: 30, from: 30)
        try Self.assertOnlyTheShareEnded(r, .shareStalled, mentioning: "longer than")
        try eventually("the stalled decoder killed and reaped", timeout: 5, interval: 0.05) { Self.isGone(pid) }
    }
}
