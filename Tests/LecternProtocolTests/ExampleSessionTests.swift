import Foundation
import XCTest
@testable import LecternProtocol
import LecternRoom
import LecternTestSupport

/// Builds the worked example of docs/protocol.md ("Worked example") with the real
/// encoder and checks that the document contains exactly these bytes.
///
/// To regenerate the section after a deliberate protocol change:
///     LECTERN_WRITE_EXAMPLE=/tmp/example.md swift test --filter ExampleSessionTests
/// and paste the file between the markers in docs/protocol.md.
enum ExampleSession {
    static let passcode = "correct horse"
    static let presenterSalt: [UInt8] = Array(0x10...0x1F)
    static let moderatorSalt: [UInt8] = Array(0x20...0x2F)
    static let challenge: [UInt8] = Array(0xA0...0xBF)
    static let resumeToken = ResumeToken(bytes: Array(0x71...0x80))!
    static let name = "Ana's laptop"
    static let room = "Room 4.12"
    static let deck = ContentHasher.id(of: Array("deck.pdf example".utf8))

    static func hexDump(_ bytes: [UInt8]) -> String {
        stride(from: 0, to: bytes.count, by: 16).map { o in
            hexString(bytes[o..<min(o + 16, bytes.count)], separator: " ")
        }.joined(separator: "\n")
    }

    static func screen(page: UInt32) -> ScreenSnapshot {
        ScreenSnapshot(content: ContentSnapshot(id: deck, name: "deck.pdf", kind: .pdf), page: page, pageCount: 12)
    }

    static func markdown() -> String {
        let key = PasscodeHash.deriveKey(passcode: passcode, salt: presenterSalt, rounds: PasscodeHash.defaultRounds)
        let macInput = RegisterProof.message(challenge: challenge, role: .presenter, name: name, resumeToken: nil)
        let proof = RegisterProof.compute(key: key, challenge: challenge, role: .presenter, name: name, resumeToken: nil)

        var meeting = Floor(config: FloorConfig(floorMode: .open))
        var out: [String] = []
        var step = 0
        func frame(_ dir: String, _ m: Message, tag: UInt16, id: UInt8, note: String) {
            step += 1
            let bytes = m.encode(tag: tag, deviceID: id)
            out.append(
                "**\(step). \(dir) \(m.command) (0x\(hexString([m.command.rawValue]))), tag \(tag), device byte 0x\(hexString([id])), \(bytes.count) bytes.**\(note.isEmpty ? "" : " " + note)\n\n```\n\(hexDump(bytes))\n```\n"
            )
        }
        func state(_ revision: UInt64, _ screen: ScreenSnapshot, note: String) {
            step += 1
            var s = meeting.snapshot(room: room, revision: revision, screen: screen, now: 0)
            s.epoch = "9f3c20d1a47be650"
            // What the room fills in on its defaults (checked against a real server by
            // WorkedExampleConformanceTests): no ink yet (§22.6), the console with the deck's
            // slide and an idle timer (§20.1), an empty audience (§24.6), the record (§26.3),
            // the output (§21.2).
            // A 16:9 deck fills the 16:9 output: its page box is the whole output.
            s.ink = InkSnapshot(box: screen.page == 0 ? nil : InkSnapshot.Box(x: 0, y: 0, width: 1, height: 1))
            let slide = screen.page == 0 ? nil : SlideSnapshot(label: String(screen.page), index: Int(screen.page), count: 12, step: 1, steps: 1)
            s.console = ConsoleSnapshot(
                slide: slide, notesLayout: .none, hasNotes: false, notesRevision: 0, wrap: false,
                timer: TimerSnapshot(
                    mode: .elapsed, running: false, elapsedMs: 0, durationMs: nil, endsAtMs: nil, remainingMs: nil, warning: false, warnMinutes: 5,
                    serverTimeMs: 1_795_000_000_000 + UInt64(step) * 1000))
            var audience = AudienceSnapshot(viewers: 0, locked: true, download: false, poll: nil, questions: [], wallQuestion: nil)
            if screen.page != 0 {
                audience.pageImage = "/page/\(deck.hex)/\(screen.page)"
                audience.prepared = []
            }
            s.audience = audience
            s.record = RecordSnapshot(on: true, pages: 0, presentersMayDownload: false)
            s.meeting = "6d2f0a4c9e81b7d35a0c4e2f9b6d1a78"
            s.output = OutputSnapshot(connected: true, mode: "1920x1080@60", width: 1920, height: 1080, name: "kms /dev/dri/card0 HDMI-A-1 1920x1080@60")
            // One full pane, the room's screen (§9.7), and the protocol's minor version (§5).
            s.layout = LayoutSnapshot.full(screen, driver: s.floor.driver)
            s.protocolMinor = lecternProtocolMinor
            s.uploads = UploadsSnapshot(maxFileBytes: 524_288_000, maxFileText: "500 MB")   // max_upload_mb's default (§30.10)
            s.conversions = []   // nothing converting (§30.4)
            let m = Message.state(s)
            let bytes = m.encode(tag: 0, deviceID: 0)
            out.append(
                "**\(step). S→C state (0x15), tag 0, device byte 0x00 (broadcast), \(bytes.count) bytes.**\(note.isEmpty ? "" : " " + note) Header, then the JSON body:\n\n```\n\(hexDump(Array(bytes.prefix(8))))\n```\n```json\n\(String(decoding: bytes[8...], as: UTF8.self))\n```\n"
            )
        }

        out.append(
            "Passcode `\(passcode)` (presenter), \(PasscodeHash.defaultRounds) rounds, presenter salt `\(hexString(presenterSalt))`, moderator salt `\(hexString(moderatorSalt))`, challenge `\(hexString(challenge))`, device name `\(name)`, open floor. The content `deck.pdf` (12 pages) was uploaded earlier; its content id is `\(deck.hex)`.\n"
        )
        out.append("Derived key = PBKDF2-HMAC-SHA256(\"\(passcode)\", salt, \(PasscodeHash.defaultRounds), 32):\n\n```\n\(hexDump(key))\n```\n")
        out.append(
            "MAC input (\(macInput.count) bytes) = \"lectern-register-v1\" ‖ challenge ‖ role 01 ‖ u16 name length ‖ name ‖ token length 00:\n\n```\n\(hexDump(macInput))\n```\n")
        out.append("Proof = HMAC-SHA256(key, MAC input):\n\n```\n\(hexDump(proof))\n```\n")

        frame(
            "S→C",
            .hello(
                Hello(
                    challenge: challenge, presenter: KDFParameters(rounds: PasscodeHash.defaultRounds, salt: presenterSalt),
                    moderator: KDFParameters(rounds: PasscodeHash.defaultRounds, salt: moderatorSalt), room: room, server: "lecternd 0.1")),
            tag: 0, id: 0xFF, note: "Sent as soon as the connection is accepted.")
        frame(
            "C→S", .register(RegisterRequest(role: .presenter, proof: proof, resumeToken: nil, name: name)), tag: 1, id: 0xFF,
            note: "Version 1, role presenter, the proof above, no resume token, the name.")
        let reg = (try? meeting.register(connection: 1, name: name, role: .presenter, resumeToken: nil, now: 0, newToken: { resumeToken }))!
        frame("S→C", reg.reply, tag: 1, id: reg.deviceID, note: "Device id 1, presenter, not resumed, the resume token.")
        state(1, .idle, note: "The snapshot every device gets after register.")
        frame("C→S", .floorRequest, tag: 2, id: 1, note: "")
        let req = (try? meeting.requestFloor(by: 1, now: 0))!
        frame("S→C", .floorAck(req.ack), tag: 2, id: 1, note: "Outcome 1: you have the floor.")
        state(2, .idle, note: "Pushed to everyone: device 1 holds the floor.")
        frame("C→S", .present(content: deck, page: 1), tag: 3, id: 1, note: "Show deck.pdf from page 1.")
        frame("S→C", .presentOK, tag: 3, id: 1, note: "")
        state(3, screen(page: 1), note: "")
        frame("C→S", .control(.next), tag: 4, id: 1, note: "Signal 0x01 next.")
        frame("S→C", .controlOK, tag: 4, id: 1, note: "")
        state(4, screen(page: 2), note: "")
        frame("C→S", .control(.goto(page: 40)), tag: 5, id: 1, note: "Signal 0x03 goto, parameter 40.")
        frame(
            "S→C", .controlFailed(.pageOutOfRange(page: 40, pageCount: 12)), tag: 5, id: 1,
            note: "Error 0x0303, connection stays open, detail 12 (the page count), message \"\(LecternError.pageOutOfRange(page: 40, pageCount: 12).message)\"")
        step += 1
        let unknown = FrameHeader(command: 0x42, deviceID: 1, tag: 6, length: 8).encode()
        out.append("**\(step). C→S an unknown command 0x42, tag 6, 8 bytes.**\n\n```\n\(hexDump(unknown))\n```\n")
        frame("S→C", .error(.unknownCommand(0x42)), tag: 6, id: 1, note: "Error 0x0004, detail 0x42; the connection stays open.")
        frame("S→C", .ping(nonce: 1), tag: 0, id: 1, note: "After 2 s without traffic.")
        frame("C→S", .pong(nonce: 1), tag: 0, id: 1, note: "The same nonce and tag.")
        frame("C→S", .unregister, tag: 7, id: 1, note: "")
        frame("S→C", .unregisterOK, tag: 7, id: 1, note: "Then the server closes the connection; the floor is released at once (no grace period) and the screen goes idle.")
        return out.joined(separator: "\n")
    }

    static let beginMarker = "<!-- example:begin (generated by Tests/LecternProtocolTests/ExampleSessionTests.swift) -->"
    static let endMarker = "<!-- example:end -->"
}

final class ExampleSessionTests: XCTestCase {
    func docURL() -> URL? {
        let path = Repository.path("docs/protocol.md")
        return FileManager.default.fileExists(atPath: path) ? URL(fileURLWithPath: path) : nil
    }

    func testDocumentedExampleMatchesTheEncoder() throws {
        let generated = ExampleSession.markdown()
        if let out = ProcessInfo.processInfo.environment["LECTERN_WRITE_EXAMPLE"] {
            try generated.write(toFile: out, atomically: true, encoding: .utf8)
        }
        let url = try XCTUnwrap(docURL(), "docs/protocol.md not found")
        let doc = try String(contentsOf: url, encoding: .utf8)
        guard let b = doc.range(of: ExampleSession.beginMarker), let e = doc.range(of: ExampleSession.endMarker) else {
            return XCTFail("example markers missing in docs/protocol.md")
        }
        let documented = doc[b.upperBound..<e.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(
            documented, generated.trimmingCharacters(in: .whitespacesAndNewlines),
            "docs/protocol.md's worked example is out of date (see ExampleSessionTests.swift for how to regenerate)")
    }

    func testExampleExchangeIsConsistent() throws {
        // The documented proof verifies against the stored key, and decoding the documented
        // register frame gives back the request.
        let stored = PasscodeHash.derive(passcode: ExampleSession.passcode, rounds: PasscodeHash.defaultRounds, salt: ExampleSession.presenterSalt)
        let proof = RegisterProof.compute(key: stored.key, challenge: ExampleSession.challenge, role: .presenter, name: ExampleSession.name, resumeToken: nil)
        let req = RegisterRequest(role: .presenter, proof: proof, resumeToken: nil, name: ExampleSession.name)
        XCTAssertTrue(RegisterProof.verify(req, challenge: ExampleSession.challenge, key: stored))
        let bytes = Message.register(req).encode(tag: 1, deviceID: 0xFF)
        var d = FrameDecoder()
        XCTAssertEqual(try Message.decode(try XCTUnwrap(try d.decode(bytes).first), sentBy: .client), .register(req))
    }
}

/// The error table of docs/protocol.md, generated from the code's own messages.
enum ErrorTable {
    static let beginMarker = "<!-- errors:begin (generated by Tests/LecternProtocolTests/ExampleSessionTests.swift) -->"
    static let endMarker = "<!-- errors:end -->"

    /// (example error, meaning of `detail`).
    static let rows: [(LecternError, String)] = [
        (.malformedFrame(length: 7), "the length field"),
        (.frameTooLarge(length: 4_294_967_295), "the length field"),
        (.malformedBody(command: 0x01, reason: "the body is shorter than its fields"), "the command byte"),
        (.unknownCommand(0x42), "the command byte"),
        (.wrongDeviceID(sent: 9, expected: 3), "the device byte sent"),
        (.notRegistered, "0"),
        (.alreadyRegistered, "0"),
        (.unsupportedVersion(client: 2), "the client's version"),
        (.timedOut(seconds: 6), "the silence in ms"),
        (.wrongPasscode, "0"),
        (.tooManyAttempts(retryAfter: 34), "ms to wait before the next attempt"),
        (.roomFull(), "the capacity"),
        (.roleUnavailable(.moderator), "the role byte"),
        (.invalidName, "0"),
        (.kicked, "0"),
        (.replaced, "0"),
        (.noFloor, "0"),
        (.floorTaken(holder: 3), "the holder's id"),
        (.moderatorOnly, "0"),
        (.doNotDisturb, "0"),
        (.noSuchDevice(7), "the id asked for"),
        (.notQueued(7), "the id asked for"),
        (.floorFree, "0"),
        (.notHandedOver, "0"),
        (.handedOver(to: 5), "the temporary holder's id"),
        (.invalidTarget(3, "You can't remove yourself — disconnect instead."), "the id asked for"),
        (.unknownContent, "0"),
        (.notYourContent, "0"),
        (.pageOutOfRange(page: 40, pageCount: 12), "the page count"),
        (.nothingOnScreen, "0"),
        (.unknownSignal(0x07), "the signal byte"),
        (.wrongKind(is: .clip), "the kind of the content (1 pdf, 2 clip)"),
        (.unreadableContent, "0"),
        (.fileTooLarge(limit: 200_000_000), "the limit in bytes"),
        (.quotaFull(quota: 4_000_000_000), "the quota in bytes"),
        (.hashMismatch, "0"),
        (.noUpload, "0"),
        (.wrongOffset(expected: 1_048_576), "the offset expected"),
        (.unsupportedFileType, "0"),
        (.uploadIncomplete(stored: 1_000, size: 5_000), "bytes stored so far"),
        (.beyondDeclaredSize(size: 5_000), "the announced size"),
        (.invalidFileName, "0"),
        (.clipsNotSupported, "0"),
        (.noClip, "0"),
        (.seekOutOfRange(durationMs: 61_000), "the clip's duration in ms"),
        (.internalError, "0"),
        (.screenshotUnavailable, "0"),
        (.shuttingDown, "0"),
        (.storageFailed, "0"),
        (.tooManyConnections, "0"),
        (.busy, "the limit (2 pictures, 4 uploads)"),
        (.notesPrivate, "0"),
        (.badNotesFile("its slide labels don't match this deck's — is it for another file?"), "0"),
        (.unknownLabel("A-9"), "0"),
        (.notesTooLarge(limit: ConsoleLimits.maxDeckNotesBytes), "the limit in bytes"),
        (.badTimer("A talk lasts from a second to 24 hours."), "0"),
        (.viewerNotAllowed(0x06), "the command byte refused"),
        (.audienceFull(250), "the viewer limit"),
        (.noSuchPoll, "0"),
        (.pollClosed, "0"),
        (.badPoll("A multiple-choice poll has 2 to 6 answers (A–F)."), "0"),
        (.badAnswer("Pick one of the answers."), "0"),
        (.noSuchQuestion, "0"),
        (.tooLong("question", limit: 300), "the limit in bytes"),
        (.tooMany("questions from one device", limit: 10), "the limit"),
        (.slowDown(retryAfter: 7), "milliseconds to wait"),
        (.audienceOnly, "0"),
        (.notAllowedToDraw, "0"),
        (.tooManyDrawers(limit: 4), "the limit (4)"),
        (.nothingToInk, "0"),
        (.strokeTooLong(limit: 1000), "points a stroke may have"),
        (.pageInkFull(strokes: 500, points: 50_000), "strokes a page may have"),
        (.roomInkFull(points: 200_000), "points the room may hold"),
        (.noStroke, "0"),
        (.nothingToUndo, "0"),
        (.leadOnly, "0"),
        (.tooManyWhiteboards(limit: 99), "the limit (99 of each colour)"),
        (.transitionOutOfRange, "0"),
        (.removedCoolingDown(retryAfter: 42.5), "ms until the device may join again"),
        (.volumeOutOfRange(101), "the level sent"),
        (.recordOff, "0"),
        (.recordNotAllowed, "0"),
        (.recordEmpty, "0"),
        (.recordBusy, "0"),
        (.recordFailed("a page needed more than the appliance allows (192 MB, 10 s a page)"), "0"),
        (.tlsRequired, "0"),
        (.noSuchPane(2, paneCount: 2), "the layout's pane count"),
        (.wallFull, "0"),
        (.wallModerated, "0"),
        (.paneCannotPlay, "0"),
        (.meetingEnded, "0"),
        (.floorExpired(gracePeriod: 60), "the grace period in ms"),
        (.paneExpired(gracePeriod: 60, pane: 1), "the grace period in ms"),
        (
            .shareUnsupported(
                detail: 23_040_000,
                "A shared picture of 4800×4800 is outside the limits: each side 16–1920 pixels and at most 1920×1200 in all — share a smaller window or lower the resolution."),
            "the value over the limit (pixels, frames a second or bits a second)"
        ),
        (.noShare, "0"),
        (.shareBusy(pane: 0, by: "Ana"), "the pane"),
        (.shareDamaged("the decoder refused a picture: Invalid data found when processing input"), "0"),
        (.shareStalled(seconds: 2), "the limit in ms"),
        (.shareWithdrawn, "0"),
        (.shareReplaced, "0"),
        (.shareNoPicture, "0"),
        (.shareNotWaiting, "0"),
        (.stillConverting("deck.pptx"), "0"),
        (.conversionUnavailable("PowerPoint presentations"), "0"),
        (.conversionFailed("deck.pptx", "LibreOffice can't read it (damaged, or protected by a password)"), "0"),
        (.conversionTimedOut("deck.pptx", seconds: 60), "the budget in seconds"),
        (.conversionTooLarge("deck.pptx", unpackedLimit: 500_000_000), "the limit in bytes"),
        (.conversionTooManyPages("deck.pptx", limit: 500), "the limit in pages"),
        (.conversionOutOfMemory("deck.pptx", limitMB: 1024), "the limit in bytes"),
        (.conversionQueueFull(limit: 8), "the limit"),
        (.conversionCancelled("deck.pptx", "its uploader cancelled it"), "0"),
        (.notConverting, "0"),
        (.pageStillConverting("deck.pptx", page: 2, ready: 1), "the pages ready"),
        (.notAnImage(position: 2, name: "notes.pdf"), "the position of the first that isn't, from 1"),
        (.tooManyImages(count: 150, limit: 100), "the limit"),
        (
            .imageTooLarge(
                "bomb.png", limitMegapixels: 250, reason: "it is 100000 × 100000 pixels (10000 megapixels), more than the 250 megapixels an image may have"),
            "the limit in megapixels"
        ),
        (
            .imageOverBudget(
                "IMG_0001.heic", limitMB: 384, reason: "decoding it needs more than the 384 MB of memory or 20 s of processor time an image may take"),
            "the memory limit in bytes"
        ),
    ]

    static func markdown() -> String {
        var lines = ["| code | name | connection | detail | message (example) |", "|---|---|---|---|---|"]
        for (e, detail) in rows {
            lines.append(
                "| `\(e.code)` | \(e.code.name) | \(e.closesConnection ? "**closed**" : "stays open") | \(detail) | \(e.message.replacingOccurrences(of: "|", with: "\\|")) |")
        }
        return lines.joined(separator: "\n")
    }
}

final class DocumentationTests: XCTestCase {
    func doc() throws -> String {
        // A missing document is a failure, not a skip: the contract is part of the product.
        try String(contentsOfFile: Repository.path("docs/protocol.md"), encoding: .utf8)
    }

    func testErrorTableIsCompleteAndCurrent() throws {
        XCTAssertEqual(ErrorTable.rows.map(\.0.code), ErrorCode.all, "one row per code, in order")
        let generated = ErrorTable.markdown()
        if let out = ProcessInfo.processInfo.environment["LECTERN_WRITE_ERRORS"] {
            try generated.write(toFile: out, atomically: true, encoding: .utf8)
        }
        let d = try doc()
        guard let b = d.range(of: ErrorTable.beginMarker), let e = d.range(of: ErrorTable.endMarker) else {
            return XCTFail("error table markers missing")
        }
        XCTAssertEqual(d[b.upperBound..<e.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines), generated)
    }

    func testEveryCommandIsDocumented() throws {
        let d = try doc()
        for c in Command.allCases {
            XCTAssertTrue(d.contains("`0x\(hexString([c.rawValue]).uppercased())` \(c)"), "command \(c) missing from the command table")
        }
    }
}
