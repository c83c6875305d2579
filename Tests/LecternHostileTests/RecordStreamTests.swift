import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternTestSupport
import XCTest

/// Issue 25, finding 4: the meeting record's download was read whole into memory, copied
/// into pieces and queued whole for the peer (a 129.8 MB record added 363 MB; a moderator
/// who asked and never read pushed the service to 814 MB). Now it is sent from its file a
/// piece at a time, each once the connection took the one before (`RecordSender`).
final class RecordStreamTests: XCTestCase {
    /// A meeting that showed every page of a heavy deck, in a room with TLS on.
    func meeting(pages: Int) throws -> ServiceHarness {
        let h = try HTTPS.room()
        let a = try HTTPS.join(h, "Ana")
        _ = try a.requestFloor()
        let content = try a.upload(path: try Fixtures.noiseDeck(pages: pages, in: h.dir)).content
        for n in 1...pages { try a.present(content, page: UInt32(n)) }
        try eventually("the record has every page") { (try a.state().record?.pages ?? 0) >= pages }
        h.attach(a)
        return h
    }

    /// A moderator over TLS with no client logic: registers, asks for the record, then
    /// reads only as the test says.
    func moderatorProbe(_ h: ServiceHarness, keep: Bool) throws -> (TLSProbe, UInt8) {
        let probe = try TLSProbe(port: h.port, fingerprint: try HTTPS.fingerprint(h), keep: true)
        let hello = try XCTUnwrap(
            Hostile.messages(probe.read(timeout: 10) { !Hostile.messages($0).isEmpty }).compactMap { if case .hello(let x) = $0 { return x } else { return nil } }.first)
        let p = try XCTUnwrap(hello.parameters(for: .moderator))
        let key = PasscodeHash.deriveKey(passcode: ServiceHarness.moderatorPass, salt: p.salt, rounds: p.rounds)
        let proof = RegisterProof.compute(key: key, challenge: hello.challenge, role: .moderator, name: "Mo", resumeToken: nil)
        probe.send(Message.register(RegisterRequest(role: .moderator, proof: proof, resumeToken: nil, name: "Mo")).encode(tag: 1, deviceID: 0xFF))
        var id: UInt8?
        probe.read(timeout: 10) { bytes in
            for m in Hostile.messages(bytes) { if case .registerOK(let ok) = m { id = ok.deviceID } }
            return id != nil
        }
        let device = try XCTUnwrap(id, "registered")
        if !keep { probe.dropKept(first: Int.max) }
        return (probe, device)
    }

    func testAModeratorWhoAsksForTheRecordAndNeverReadsCostsABoundedAmount() throws {
        let h = try meeting(pages: 12)
        // Warm up: one whole record, read at once (its size, and the allocator's first growth).
        let warm = try HTTPS.join(h, "Mo", role: .moderator)
        let size = try warm.meetingRecord().pdf.count
        warm.close()
        try eventually("only the presenter connected") { h.service.connectionCounts.open == 1 }
        XCTAssertGreaterThan(size, 16 << 20, "a record large enough to tell a copy from a piece")
        let (probe, device) = try moderatorProbe(h, keep: false)
        let ping = Message.ping(nonce: 9).encode(tag: 3, deviceID: device)
        let growth = try Footprint.peakGrowth {
            probe.send(Message.recordRequest.encode(tag: 2, deviceID: device))
            // It never reads (a ping a second keeps it alive while the record is made): the
            // service stops sending and drops it, whatever the record's size.
            var n = 0
            // (A probe that doesn't read doesn't see its close: the service's count does.)
            try eventually("the service dropped the moderator who doesn't read", timeout: 120, interval: 0.1) {
                n += 1
                if n % 10 == 0 { probe.send(ping) }
                return h.service.connectionCounts.open == 1
            }
        }
        print("record of \(size >> 20) MiB, never read: service growth \(growth.bytes >> 20) MiB")
        XCTAssertLessThan(growth.bytes, 12 << 20, "a \(size >> 20) MiB record not read costs a bounded amount, not the record")
        // The room is free for the next record.
        XCTAssertGreaterThan(try HTTPS.join(h, "Mo2", role: .moderator).meetingRecord().pdf.count, 16 << 20)
    }

    func testAModeratorWhoReadsSlowlyGetsEveryByte() throws {
        let h = try meeting(pages: 6)
        let (probe, device) = try moderatorProbe(h, keep: true)
        probe.send(Message.recordRequest.encode(tag: 2, deviceID: device))
        // 16 KiB every 10 ms (about 1.6 MB/s): slower than the service sends. A ping a
        // second keeps it alive while the record is made (it answers none).
        var pieces: [RecordChunk] = []
        var d = FrameDecoder()
        var n = 0
        var refused: LecternError?
        try eventually("every piece of the record, read slowly", timeout: 120, interval: 0) {
            n += 1
            if n % 100 == 0 { probe.send(Message.ping(nonce: 9).encode(tag: 3, deviceID: device)) }
            probe.readOnce()
            Thread.sleep(forTimeInterval: 0.01)   // the reader's pace, not a wait for anything
            d.feed(probe.take())
            while let f = try d.next() {
                switch try? Message.decode(f, sentBy: .server) {
                case .recordData(let c)?: pieces.append(c)
                case .error(let e)?: refused = e
                default: break
                }
            }
            if refused != nil { return true }   // said at once below, not after the deadline
            XCTAssertFalse(probe.isClosed && !(pieces.last?.isLast ?? false), "dropped before the end")
            return pieces.last.map { $0.isLast } ?? false || probe.isClosed
        }
        if let refused { return XCTFail("the record was refused: \(refused.message)") }
        var pdf: [UInt8] = []
        for p in pieces {
            XCTAssertEqual(Int(p.offset), pdf.count, "in order, none missing")
            pdf += p.data
        }
        XCTAssertEqual(pdf.count, Int(pieces[0].totalSize))
        let path = h.dir + "/slow-record.pdf"
        try Data(pdf).write(to: URL(fileURLWithPath: path))
        let info = try Fixtures.run("pdfinfo", [path])
        XCTAssertEqual(info.status, 0, "a whole PDF: \(info.err)")
        XCTAssertTrue(String(decoding: info.out, as: UTF8.self).contains("Pages:           \(pieces[0].pages)"), String(decoding: info.out, as: UTF8.self))
    }
}
