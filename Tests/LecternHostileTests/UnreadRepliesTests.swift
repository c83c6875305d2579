import Foundation
import LecternModel
import LecternSystem
import LecternProtocol
import LecternTestSupport
import XCTest

/// "Unread replies pile up without limit": requests that each get a reply, from a peer
/// that never reads. The service stops reading from it once its output budget is full,
/// closes it, and its memory doesn't grow.
final class UnreadRepliesTests: XCTestCase {
    static let bound = 64 << 20

    func testErrorRepliesToAnUnregisteredPeerCostNothing() throws {
        let h = try ServiceHarness()
        let before = Footprint.residentBytes()
        let s = try h.raw()
        // 8 MiB of requests that each earn notRegistered (before: +156 MiB).
        s.send(Hostile.frames(.stateRequest, count: (8 << 20) / 8))
        XCTAssertTrue(Hostile.closedByService(s, within: 10), "closed after a few errors")
        XCTAssertLessThan(Footprint.residentBytes() - before, Self.bound)
        _ = try h.presenter("Ana")   // and the room still takes people
    }

    func testARegisteredPeerThatNeverReadsIsCutOff() throws {
        // Over TLS (before: +89 MiB, as NIOSSL pinned a 16 KiB buffer for every small reply
        // waiting for the peer, and gathered 16 MiB of a read turn's plain bytes; plain: +31).
        let h = try ServiceHarness()
        let observer = try h.presenter("observer")
        let device = try RawDevice(port: h.port, name: "sink", key: try Hostile.presenterKey(h), tls: h.fingerprint)
        let before = Footprint.residentBytes()
        // Pings, each answered, never read: past what the sockets hold the service's output
        // budget fills, it stops reading and drops the peer after 5 s, and the send fails.
        let block = Hostile.frames(.ping(nonce: 1), count: 100_000, device: device.id)   // 1.2 MB
        let sent = DispatchSemaphore(value: 0)
        let blocks = Shared(0)
        let sender = Handoff(device)   // the sending thread's from here on
        DispatchQueue.global().async {
            guard let device = sender.take() else {
                sent.signal()
                return
            }
            while blocks.value < 400 && device.socket.send(block) { blocks.modify { $0 += 1 } }
            sent.signal()
        }
        XCTAssertEqual(sent.wait(timeout: .now() + 40), .success, "the service closed the connection")
        XCTAssertLessThan(blocks.value, 400, "the service stopped taking pings it couldn't answer")
        let growth = Footprint.residentBytes() - before
        print("a peer that never reads: \(blocks.value) blocks of pings taken, resident memory +\(growth >> 20) MiB")
        XCTAssertLessThan(growth, Self.bound)
        _ = try observer.waitForState(timeout: 10) { !$0.devices.contains { $0.name == "sink" } }
    }

    /// A connection the service closes over TLS is closed soon after its close_notify, not
    /// after NIOSSL's 5 s wait for the peer's: a peer that doesn't read never sends one.
    func testAClosedTLSConnectionDoesNotWaitForThePeersCloseNotify() throws {
        let h = try ServiceHarness()
        let s = try h.raw()
        let open = Footprint.openDescriptors()   // the service's end of it among them
        s.send(Hostile.frames(.stateRequest, count: 6))   // six errors: the sixth closes
        XCTAssertTrue(Hostile.closedByService(s, within: 10), "closed after six errors")
        try eventually("the service's end of the connection closed (\(Footprint.openDescriptors()) open, \(open) before)", timeout: 3) {
            Footprint.openDescriptors() < open
        }
    }

    /// 1500 screenshot requests in one write, never read (before: +174 MiB, and the
    /// connection never timed out): two are made at a time, the rest refused at once.
    func testUnreadScreenshotsAreBounded() throws {
        let h = try ServiceHarness()
        let observer = try h.presenter("observer")
        let device = try RawDevice(port: h.port, name: "shots", key: try Hostile.presenterKey(h), tls: h.fingerprint)
        let before = Footprint.residentBytes()
        device.socket.send(Hostile.frames(.screenshotRequest(maxWidth: 0, maxHeight: 0), count: 1500, device: device.id))
        _ = try observer.waitForState(timeout: 20) { !$0.devices.contains { $0.name == "shots" } }
        XCTAssertLessThan(Footprint.residentBytes() - before, Self.bound)
    }
}
