import XCTest
@testable import LecternProtocol
import LecternTestKit

final class MessageTests: XCTestCase {
    func testSamplesCoverEveryCommand() {
        let covered = Set(sampleMessages().map(\.command))
        XCTAssertEqual(covered, Set(Command.allCases), "missing: \(Set(Command.allCases).subtracting(covered))")
    }

    func testEveryMessageRoundTrips() throws {
        for (i, m) in sampleMessages().enumerated() {
            let bytes = m.encode(tag: UInt16(i + 1), deviceID: 5)
            let header = try FrameHeader.decode(bytes)
            XCTAssertEqual(Int(header.length), bytes.count)
            XCTAssertEqual(header.command, m.command.rawValue)
            XCTAssertEqual(header.tag, UInt16(i + 1))
            XCTAssertEqual(header.deviceID, 5)
            let decoded = try Message.decode(header: header, body: Array(bytes[8...]))
            XCTAssertEqual(decoded, m, "\(m.command)")
        }
    }

    func testFixedBodyLayouts() {
        // control: signal, 3 reserved, u32 parameter (big-endian) — page numbers far beyond 255.
        XCTAssertEqual(Message.control(.goto(page: 70_000)).encodeBody(), [0x03, 0, 0, 0, 0x00, 0x01, 0x11, 0x70])
        XCTAssertEqual(Message.control(.blank(white: true)).encodeBody(), [0xF0, 0, 0, 0, 0, 0, 0, 1])
        XCTAssertEqual(Message.control(.handOver(to: 9)).encodeBody(), [0xFD, 0, 0, 0, 0, 0, 0, 9])
        XCTAssertEqual(Message.floorModerate(action: .grant, target: 4).encodeBody(), [1, 4])
        XCTAssertEqual(Message.ping(nonce: 0x0102_0304).encodeBody(), [1, 2, 3, 4])
        XCTAssertEqual(
            Message.error(LecternError(.noFloor, detail: 0x0A0B, message: "x")).encodeBody(),
            [0x02, 0x01, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0x0A, 0x0B, 0x00, 0x01, 0x78])
        XCTAssertEqual(Message.error(.kicked).encodeBody()[2], 1, "fatal flag")
        XCTAssertEqual(Message.floorRequest.encode(tag: 0x0102, deviceID: 3), [0x06, 3, 1, 2, 0, 0, 0, 8])
        // page-preview: content id, u32 page, u16 max width, u16 max height — 40 bytes.
        let preview = Message.pagePreview(PagePreviewRequest(content: cid(1), page: 0x0102_0304, maxWidth: 480, maxHeight: 0x0A0B)).encodeBody()
        XCTAssertEqual(preview.count, 40)
        XCTAssertEqual(Array(preview[32...]), [1, 2, 3, 4, 0x01, 0xE0, 0x0A, 0x0B])
        XCTAssertEqual(Command.pagePreview.sender, .client)
        // screenshot-request: empty for the full frame (as before), or u16 max width, u16 max height.
        XCTAssertEqual(Message.screenshotRequest().encodeBody(), [])
        XCTAssertEqual(Message.screenshotRequest(maxWidth: 640, maxHeight: 0x0102).encodeBody(), [0x02, 0x80, 0x01, 0x02])
        XCTAssertEqual(Message.screenshotRequest(maxWidth: 640, maxHeight: 0, jpeg: true).encodeBody(), [0x02, 0x80, 0x00, 0x00, 0x01])
    }

    func testTruncatedBodiesAreMalformed() {
        for m in sampleMessages() {
            let body = m.encodeBody()
            // Messages ending in a byte run accept a shorter run; only their fixed part must be complete.
            let fixed: Int
            switch m.command {
            case .uploadChunk: fixed = 40
            case .screenshotData: fixed = 16
            case .recordData: fixed = 10
            case .shareFrame: fixed = 17   // its picture runs to the end (at least one byte)
            case .shareAudio: fixed = 17   // its packet runs to the end (at least one byte)
            case .pagePreview: fixed = 40   // the notes-half byte is optional
            case .notesEdit: fixed = 36
            case .notesFile: fixed = 32
            default: fixed = body.count
            }
            for n in 0..<fixed {
                let header = FrameHeader(command: m.command.rawValue, deviceID: 1, tag: 1, length: UInt32(8 + n))
                do {
                    let got = try Message.decode(header: header, body: Array(body.prefix(n)))
                    if [.screenshotData, .recordData, .uploadChunk, .notesEdit, .notesFile, .shareFrame, .shareAudio].contains(m.command) { continue }
                    if m.command == .screenshotRequest && (n == 0 || n == 4) { continue }   // empty: the full frame; 4: no flags
                    XCTFail("\(m.command) decoded from \(n) of \(body.count) bytes: \(got)")
                } catch {
                    XCTAssertEqual(error.code, .malformedBody, "\(m.command) at \(n)")
                    XCTAssertTrue(error.closesConnection)
                }
            }
        }
    }

    func testTrailingBytesAreMalformed() {
        for m in sampleMessages() where ![.uploadChunk, .screenshotData, .recordData, .state, .notesEdit, .notesFile, .shareFrame, .shareAudio].contains(m.command) {
            if case .pagePreview(let p) = m, !p.notesHalf { continue }   // its last byte is optional
            let body = m.encodeBody() + [0]
            do {
                let got = try Message.decode(header: FrameHeader(command: m.command.rawValue, deviceID: 1, tag: 1, length: UInt32(8 + body.count)), body: body)
                XCTFail("\(m.command) decoded with a byte more: \(got)")
            } catch {
                XCTAssertEqual(error.code, .malformedBody, "\(m.command)")
            }
        }
    }

    func testInvalidFieldValuesAreMalformed() {
        func decode(_ c: Command, _ body: [UInt8]) throws -> Message {
            try Message.decode(header: FrameHeader(command: c.rawValue, deviceID: 1, tag: 1, length: UInt32(8 + body.count)), body: body)
        }
        var reg = Message.register(RegisterRequest(role: .presenter, proof: Array(repeating: 0, count: 32), resumeToken: nil, name: "A")).encodeBody()
        reg[2] = 4   // role
        assertThrowsCode(.malformedBody) { try decode(.register, reg) }
        var tok = Message.register(RegisterRequest(role: .presenter, proof: Array(repeating: 0, count: 32), resumeToken: token(1), name: "A")).encodeBody()
        tok[35] = 15   // token length must be 0 or 16
        assertThrowsCode(.malformedBody) { try decode(.register, tok) }
        var name = Message.register(RegisterRequest(role: .presenter, proof: Array(repeating: 0, count: 32), resumeToken: nil, name: "AB")).encodeBody()
        name[name.count - 1] = 0xFF   // not UTF-8
        assertThrowsCode(.malformedBody) { try decode(.register, name) }
        var kind = Message.uploadBegin(UploadBegin(content: cid(1), size: 1, kind: .pdf, proof: nil, name: "a")).encodeBody()
        kind[40] = 9
        assertThrowsCode(.malformedBody) { try decode(.uploadBegin, kind) }
        assertThrowsCode(.malformedBody) { try decode(.floorModerate, [7, 1]) }
        assertThrowsCode(.malformedBody) { try decode(.floorAck, [3, 0, 0]) }
        assertThrowsCode(.malformedBody) { try decode(.state, Array("{\"revision\":1}".utf8)) }
        assertThrowsCode(.malformedBody) { try decode(.state, []) }
        let big = Message.uploadChunk(UploadChunk(content: cid(1), offset: 0, data: Array(repeating: 0, count: ProtocolLimits.maxChunkLength + 1))).encodeBody()
        assertThrowsCode(.malformedBody) { try decode(.uploadChunk, big) }
        let past = Message.screenshotData(ScreenshotChunk(width: 1, height: 1, totalSize: 10, offset: 5, data: Array(repeating: 0, count: 6))).encodeBody()
        assertThrowsCode(.malformedBody) { try decode(.screenshotData, past) }
    }

    func testUnknownCommandsAndSignalsKeepTheConnection() {
        for c: UInt8 in [0x00, 0x0F, 0x33, 0x7F, 0x42, 0x2A, 0xFF] {   // 0x34/0x35 are the pointer and stroke-begin since §22
            do {
                _ = try Message.decode(header: FrameHeader(command: c, deviceID: 1, tag: 1, length: 8), body: [])
                XCTFail("0x\(String(c, radix: 16)) decoded")
            } catch {
                XCTAssertEqual(error.code, .unknownCommand)
                XCTAssertEqual(error.detail, UInt64(c))
                XCTAssertFalse(error.closesConnection)
            }
        }
        XCTAssertEqual(LecternError.unknownCommand(0x42).message, "Unknown command 0x42.")
        do {
            _ = try Message.decode(header: FrameHeader(command: 0x0C, deviceID: 1, tag: 1, length: 16), body: [0x07, 0, 0, 0, 0, 0, 0, 0])
            XCTFail("unknown signal decoded")
        } catch {
            XCTAssertEqual(error.code, .unknownSignal)
            XCTAssertFalse(error.closesConnection)
        }
        // A server-only message sent by a client is "unknown" to the server.
        let ok = Message.registerOK(RegisterOK(deviceID: 1, role: .presenter, resumed: false, floorRestored: false, resumeToken: token(1))).encode(tag: 1, deviceID: 1)
        assertThrowsCode(.unknownCommand) { try Message.decode(header: FrameHeader.peek(ok)!, body: Array(ok[8...]), sentBy: .client) }
        XCTAssertNoThrow(try Message.decode(header: FrameHeader.peek(ok)!, body: Array(ok[8...]), sentBy: .server))
        let ping = Message.ping(nonce: 3).encode(tag: 1, deviceID: 1)
        XCTAssertNoThrow(try Message.decode(header: FrameHeader.peek(ping)!, body: Array(ping[8...]), sentBy: .client))
    }

    func testRandomBodiesNeverTrapAndReencodeStably() {
        var rng = SplitMix(seed: 2024)
        var decoded = 0
        let commands = Command.allCases.map(\.rawValue)
        for i in 0..<6000 {
            // Mostly known commands (to exercise the body decoders), some arbitrary bytes.
            let command = i % 4 == 0 ? UInt8.random(in: 0...255, using: &rng) : commands.randomElement(using: &rng)!
            let body = rng.bytes(Int.random(in: 0...80, using: &rng))
            do {
                let m = try Message.decode(header: FrameHeader(command: command, deviceID: 1, tag: 1, length: UInt32(8 + body.count)), body: body)
                decoded += 1
                let again = m.encode(tag: 1, deviceID: 1)
                XCTAssertEqual(try Message.decode(header: FrameHeader.peek(again)!, body: Array(again[8...])), m)
            } catch {
                XCTAssertTrue([.unknownCommand, .malformedBody, .unknownSignal, .invalidTarget].contains(error.code), "\(error)")
            }
        }
        XCTAssertGreaterThan(decoded, 80, "some random bodies are valid (empty-body commands, pings, ...)")
    }

    func testFailureRepliesPickTheVPresentCommands() {
        XCTAssertEqual(Message.failure(replyingTo: 0x01, .wrongPasscode).command, .registerFailed)
        XCTAssertEqual(Message.failure(replyingTo: 0x0C, .noFloor).command, .controlFailed)
        XCTAssertEqual(Message.failure(replyingTo: 0x30, .noFloor).command, .error)
        XCTAssertEqual(Message.failure(replyingTo: 0x42, .unknownCommand(0x42)).command, .error)
        XCTAssertEqual(Message.controlFailed(.noFloor).error, .noFloor)
        XCTAssertEqual(Message.success(replyingTo: .clipSeek), .clipSeekOK)
        XCTAssertEqual(Message.success(replyingTo: .floorRelease), .ok)
    }

    func testErrorMessagesArePlainEnglish() {
        XCTAssertEqual(LecternError.tooManyAttempts(retryAfter: 33.2).message, "Too many attempts — try again in 34 s.")
        XCTAssertEqual(LecternError.roomFull().message, "The room is full (254 devices).")
        XCTAssertEqual(LecternError.fileTooLarge(limit: 200_000_000).message, "The file is larger than the 200 MB limit.")
        XCTAssertEqual(LecternError.quotaFull(quota: 4_000_000_000).message, "The appliance's storage is full (quota 4 GB).")
        XCTAssertEqual(LecternError.floorTaken(holder: 3).message, "Someone else has the floor.")
        XCTAssertEqual(LecternError.moderatorOnly.message, "Only the moderator can do that.")
        XCTAssertEqual(LecternError.clipsNotSupported.message, "Clips are not supported yet.")
        XCTAssertEqual(LecternError.pageOutOfRange(page: 40, pageCount: 12).message, "There's no page 40 — the document has 12 pages.")
        XCTAssertEqual(humanBytes(1_500_000), "1.5 MB")
        XCTAssertEqual(Set(ErrorCode.all).count, ErrorCode.all.count, "codes are unique")
        XCTAssertTrue(ErrorCode.fatalCodes.isSubset(of: Set(ErrorCode.all)))
    }

    func testLongErrorMessagesAreClippedOnCharacterBoundaries() throws {
        let long = String(repeating: "é", count: 2000)
        let bytes = Message.error(LecternError(.internalError, message: long)).encode(tag: 1, deviceID: 1)
        guard case .error(let e) = try Message.decode(header: FrameHeader.peek(bytes)!, body: Array(bytes[8...])) else { return XCTFail() }
        XCTAssertEqual(e.message.utf8.count, 1024)
    }

    func testSnapshotJSONHasExplicitNulls() throws {
        let s = Snapshot(revision: 1, room: "R", floorMode: .open, floor: FloorSnapshot(), devices: [], screen: .idle)
        let json = String(decoding: s.jsonBytes(), as: UTF8.self)
        XCTAssertEqual(
            json,
            #"{"audience":null,"console":null,"conversions":null,"devices":[],"epoch":null,"floor":{"delegate":null,"doNotDisturb":false,"driver":null,"graceRemainingMs":null,"holder":null,"queue":[]},"floorMode":"open","ink":null,"layout":null,"meeting":null,"output":{"connected":true,"height":0,"losses":0,"mode":"","name":"","width":0},"protocolMinor":null,"record":null,"revision":1,"room":"R","screen":{"blank":"none","clip":null,"content":null,"page":0,"pageCount":0},"shares":null,"sound":{"device":null,"level":100,"muted":false},"transitions":{"fallbackFadeMs":0},"uploads":null}"#
        )
        XCTAssertEqual(try Snapshot.fromJSON(s.jsonBytes()), s)
    }

    func testScreenshotSplit() {
        let png = (0..<2_500_000).map { UInt8(truncatingIfNeeded: $0) }
        let chunks = ScreenshotChunk.split(png: png, width: 1920, height: 1080)
        XCTAssertEqual(chunks.count, 3)
        XCTAssertEqual(chunks.map(\.offset), [0, 1_048_576, 2_097_152])
        XCTAssertEqual(chunks.flatMap(\.data), png)
        XCTAssertEqual(chunks.map(\.isLast), [false, false, true])
        for c in chunks { XCTAssertLessThanOrEqual(Message.screenshotData(c).encode(tag: 1, deviceID: 1).count, Int(ProtocolLimits.maxFrameLength)) }
    }

    func testLargestUploadChunkFitsTheFrameLimit() throws {
        let m = Message.uploadChunk(UploadChunk(content: cid(1), offset: 0, data: Array(repeating: 1, count: ProtocolLimits.maxChunkLength)))
        let bytes = m.encode(tag: 1, deviceID: 1)
        XCTAssertLessThanOrEqual(bytes.count, Int(ProtocolLimits.maxFrameLength))
        var d = FrameDecoder()
        XCTAssertEqual(try Message.decode(try XCTUnwrap(try d.decode(bytes).first)), m)
    }
}
