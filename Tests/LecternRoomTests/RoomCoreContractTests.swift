import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// The rules of docs/protocol.md that live in the core (issue 13, "the contract, exact"):
/// each test fails on the service as it was before the rule was written down.
final class RoomCoreContractTests: XCTestCase {
    typealias H = RoomCoreHarness

    // MARK: upload-ready and upload-stored carry a clip's duration

    func testUploadStoredAndReadyCarryTheClipsDuration() {
        let clip = cid(4)
        let h = H(floor: .open)
        let ana = h.join(1, name: "Ana")
        let begin = UploadBegin(content: clip, size: 5000, kind: .clip, proof: nil, name: "intro.mp4")
        h.send(.uploadBegin(begin), from: 1, tag: 11, device: ana)
        h.handle(.partOpened(clip, writer: 1, failure: nil))
        h.send(.uploadChunk(UploadChunk(content: clip, offset: 0, data: [UInt8](repeating: 1, count: 5000))), from: 1, device: ana)
        h.handle(.chunkWritten(clip, writer: 1, bytes: 5000, failure: nil))
        h.send(.uploadFinish(content: clip), from: 1, tag: 12, device: ana)
        let store = UploadToStore(content: clip, name: "intro.mp4", announcedKind: .clip, device: ana, uploader: "Ana", size: 5000)
        let entry = ContentEntry(id: clip, name: "intro.mp4", kind: .clip, size: 5000, pages: 0, durationMs: 4000)
        XCTAssertEqual(
            H.replies(to: 1, h.handle(.uploadFinished(1, tag: 12, writer: 1, store, .success(entry)))),
            [.uploadStored(UploadStored(content: clip, kind: .clip, size: 5000, pageCount: 0, durationMs: 4000))])

        // Another device proves it has the stored clip: upload-ready status 1 says its length too.
        let ben = h.join(2, name: "Ben")
        let proved = UploadBegin(content: clip, size: 5000, kind: nil, proof: Array(repeating: 9, count: 32), name: "intro.mp4")
        h.send(.uploadBegin(proved), from: 2, tag: 21, device: ben)
        XCTAssertEqual(
            H.replies(to: 2, h.handle(.proofChecked(2, tag: 21, proved, matches: true))),
            [.uploadReady(UploadReady(content: clip, status: .stored, offset: 5000, kind: .clip, pageCount: 0, durationMs: 4000))])
    }

    // MARK: pause, resume and seek show in the state at once

    func playing() -> (H, DeviceID) {
        let clip = ContentEntry(id: cid(2), name: "clip.mp4", kind: .clip, size: 5000, pages: 0, durationMs: 4000)
        let h = H(floor: .open, catalog: [clip])
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        h.own(cid(2), from: 1, device: ana)
        h.send(.clipPlay(content: cid(2), loop: false), from: 1, device: ana)
        h.handle(.clipOpened(serial: 1, .success(ClipFacts(duration: 4, description: "h264"))))
        return (h, ana)
    }

    func testTheFirstPushAfterPauseOKSaysPausedWhateverThePlayerReportsMeanwhile() {
        let (h, ana) = playing()
        let pause = h.send(.clipPause, from: 1, tag: 30, device: ana)
        XCTAssertEqual(H.replies(to: 1, pause), [.clipPauseOK])
        XCTAssertEqual(H.states(to: 1, pause).map { $0.screen.clip?.state }, [.paused], "one push, after the ok, saying paused")
        // A report the player sent before it took the pause still says playing.
        let stale = h.handle(.clipProgressed(serial: 1, ClipProgress(state: .playing, position: 1.2, presented: 36)))
        XCTAssertEqual(H.states(to: 1, stale).last?.screen.clip?.state, .paused)
        // Pause while paused: ok, nothing changes, no push.
        let again = h.send(.clipPause, from: 1, tag: 31, device: ana)
        XCTAssertEqual(H.replies(to: 1, again), [.clipPauseOK])
        XCTAssertTrue(H.states(to: 1, again).isEmpty)
        // A seek while paused gets a push of its own, at the position asked for, still paused.
        let seek = h.send(.clipSeek(positionMs: 2500), from: 1, tag: 32, device: ana)
        XCTAssertEqual(H.replies(to: 1, seek), [.clipSeekOK])
        XCTAssertEqual(H.states(to: 1, seek).last?.screen.clip?.positionMs, 2500)
        XCTAssertEqual(H.states(to: 1, seek).last?.screen.clip?.state, .paused)
        // Resume: playing from the first push on, and stays so while the player plays on.
        let resume = h.send(.clipResume, from: 1, tag: 33, device: ana)
        XCTAssertEqual(H.replies(to: 1, resume), [.clipResumeOK])
        XCTAssertEqual(H.states(to: 1, resume).map { $0.screen.clip?.state }, [.playing])
        let later = h.handle(.clipProgressed(serial: 1, ClipProgress(state: .paused, position: 2.5, presented: 40)))
        XCTAssertEqual(H.states(to: 1, later).last?.screen.clip?.state, .playing, "a report from before the resume")
        // Resume while playing: ok, no push.
        XCTAssertTrue(H.states(to: 1, h.send(.clipResume, from: 1, tag: 34, device: ana)).isEmpty)
    }

    // MARK: one transition, one snapshot

    func testAWithdrawPublishesOneSnapshotWithTheFloorFreeAndTheScreenIdle() {
        let h = H(floor: .moderated, catalog: [deck(1)])
        let mod = h.join(1, name: "Chair", role: .moderator)
        let ana = h.join(2, name: "Ana")
        h.send(.floorRequest, from: 2, device: ana)
        h.send(.floorModerate(action: .grant, target: ana), from: 1, device: mod)
        h.own(cid(1), from: 2, device: ana)
        h.shown(h.send(.present(content: cid(1), page: 2), from: 2, device: ana))

        let withdraw = h.send(.floorModerate(action: .withdraw, target: 0), from: 1, device: mod)
        XCTAssertEqual(H.replies(to: 1, withdraw), [.ok])
        XCTAssertEqual(H.shows(withdraw), [.idle])
        XCTAssertTrue(H.states(to: 1, withdraw).isEmpty, "no snapshot with the floor free and the slide still up")
        let shown = h.shown(withdraw)
        let states = H.states(to: 1, shown)
        XCTAssertEqual(states.count, 1)
        XCTAssertNil(states.first?.floor.holder)
        XCTAssertNil(states.first?.screen.content)

        // When the idle screen can't be shown the owed snapshot still comes (the floor did change).
        h.send(.floorRequest, from: 2, device: ana)
        h.send(.floorModerate(action: .grant, target: ana), from: 1, device: mod)
        h.shown(h.send(.present(content: cid(1), page: 1), from: 2, device: ana))
        let again = h.send(.floorModerate(action: .withdraw, target: ana), from: 1, device: mod)
        XCTAssertTrue(H.states(to: 1, again).isEmpty)
        let failed = h.shown(again, error: .internalError)
        XCTAssertEqual(H.states(to: 1, failed).count, 1)
        XCTAssertNil(H.states(to: 1, failed).first?.floor.holder)
    }

    // MARK: shuttingDown

    func testShuttingDownTellsEveryConnectionThenClosesIt() {
        let h = H(floor: .open)
        let ana = h.join(1, name: "Ana")
        _ = h.open(2)
        let effects = h.handle(.shuttingDown)
        for id: ConnectionID in [1, 2] {
            guard case .error(let e)? = H.messages(to: id, effects).first else { return XCTFail("no error to \(id): \(effects)") }
            XCTAssertEqual(e.code, .shuttingDown)
            XCTAssertTrue(e.closesConnection)
            XCTAssertTrue(effects.contains(.close(id)))
        }
        XCTAssertEqual(h.core.floor.devices[ana]?.name, "Ana")
    }

    // MARK: registration

    /// §6.2 says register goes with device byte 0xFF: a registered client that follows it
    /// gets `alreadyRegistered` (§4), not `wrongDeviceID`; so does one that sends its own id.
    func testARegisterOnARegisteredConnectionIsAlreadyRegisteredWhateverItsDeviceByte() {
        let h = H(floor: .open)
        let ana = h.join(1, name: "Ana")
        let again = h.register(1, hello: h.open(9), name: "Ana", role: .presenter)
        for byte in [ProtocolLimits.unregisteredID, ana] {
            let effects = h.send(again, from: 1, device: byte)
            guard case .registerFailed(let e)? = H.replies(to: 1, effects).first else { return XCTFail("\(effects)") }
            XCTAssertEqual(e.code, .alreadyRegistered)
        }
    }

    /// "No control characters": no scalar of category Cc, Cf, Zl or Zp, except the joiners
    /// U+200C and U+200D (emoji sequences, some scripts).
    func testNamesRefuseFormatCharactersButKeepEmojiJoiners() {
        XCTAssertFalse(DeviceName.isValid("Ana\u{202E}pot"), "right-to-left override")
        XCTAssertFalse(DeviceName.isValid("Ana\u{200B}"), "zero width space")
        XCTAssertFalse(DeviceName.isValid("Ana\u{2028}"), "line separator")
        XCTAssertFalse(DeviceName.isValid("Ana\u{FEFF}"))
        XCTAssertFalse(DeviceName.isValid("Ana\u{85}"))
        XCTAssertTrue(DeviceName.isValid("Ana 👩\u{200D}💻"))
        XCTAssertTrue(DeviceName.isValid("Zoë's laptop ❤\u{FE0F}"))
        XCTAssertFalse(FileName.isValid("fdp.\u{202E}fdp.exe"))
        XCTAssertTrue(FileName.isValid("Präsentation 2026.pdf"))
    }
}

extension RoomCoreContractTests {
    /// Hand-over takes a device id, 1–254: 0 and 255 are `invalidTarget` like 256.
    func testHandOverToZeroOr255IsAnInvalidTarget() {
        let h = H(floor: .open)
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        for target: UInt32 in [0, 255, 256] {
            let frame = ByteFrame.control(signal: 0xFD, parameter: target, device: ana)
            let effects = h.handle(.frame(1, frame))
            guard case .controlFailed(let e)? = H.replies(to: 1, effects).first else { return XCTFail("\(target): \(effects)") }
            XCTAssertEqual(e.code, .invalidTarget, "hand-over to \(target)")
        }
    }

    /// A zero-byte file is refused at upload-begin, not stored or left half-way.
    func testAZeroByteFileIsRefusedAtBegin() {
        let h = H(floor: .open)
        let ana = h.join(1, name: "Ana")
        let begin = UploadBegin(content: cid(5), size: 0, kind: nil, proof: nil, name: "empty.pdf")
        let effects = h.send(.uploadBegin(begin), from: 1, device: ana)
        XCTAssertEqual(H.errorCode(to: 1, effects), .unsupportedFileType)
        XCTAssertTrue(H.work(effects).isEmpty)
    }
}

/// Frames written by hand, for what the encoder can't produce.
enum ByteFrame {
    static func control(signal: UInt8, parameter: UInt32, device: UInt8, tag: UInt16 = 7) -> WireFrame {
        let p = parameter
        let body: [UInt8] = [signal, 0, 0, 0, UInt8(p >> 24), UInt8((p >> 16) & 0xFF), UInt8((p >> 8) & 0xFF), UInt8(p & 0xFF)]
        let bytes: [UInt8] = [0x0C, device, UInt8(tag >> 8), UInt8(tag & 0xFF), 0, 0, 0, UInt8(8 + body.count)] + body
        return WireFrame(header: try! FrameHeader.decode(bytes), body: body)
    }
}

extension RoomCoreContractTests {
    /// Nothing registered within 30 s: `timedOut` with detail 30000 (the deadline, in ms), closed.
    func testNoRegisterWithin30SecondsIsTimedOutWithDetail30000() {
        let h = H(floor: .open)
        _ = h.open(1)
        for _ in 0..<61 {   // the shell's half-second ticks; the peer answers its pings
            h.now += 0.5
            for case .ping(let n) in H.messages(to: 1, h.handle(.tick)) { h.send(.pong(nonce: n), from: 1, tag: 0) }
        }
        guard case .error(let e)? = H.messages(to: 1, h.log).last(where: { if case .error = $0 { return true } else { return false } })
        else { return XCTFail("no error") }
        XCTAssertEqual(e.code, .timedOut)
        XCTAssertEqual(e.detail, 30_000)
        XCTAssertTrue(e.closesConnection)
    }
}

extension RoomCoreContractTests {
    /// Two connections upload the same new file: the newest begin takes the part file over,
    /// and the earlier uploader is told (its next chunk, then its finish), not left guessing.
    func testTheUploaderWhoseFileWasTakenOverIsToldOnItsNextChunkAndFinish() {
        let file = cid(7)
        let h = H(floor: .open)
        let ana = h.join(1, name: "Ana"), ben = h.join(2, name: "Ben")
        let begin = UploadBegin(content: file, size: 3000, kind: .pdf, proof: nil, name: "talk.pdf")
        func chunk(_ offset: UInt64) -> Message { .uploadChunk(UploadChunk(content: file, offset: offset, data: [UInt8](repeating: 1, count: 1000))) }
        h.send(.uploadBegin(begin), from: 1, device: ana)
        h.handle(.partOpened(file, writer: 1, failure: nil))
        h.send(chunk(0), from: 1, device: ana)
        h.send(.uploadBegin(begin), from: 2, tag: 21, device: ben)
        let told = h.send(chunk(1000), from: 1, tag: 31, device: ana)
        guard case .error(let e)? = H.replies(to: 1, told).first else { return XCTFail("not told: \(told)") }
        XCTAssertEqual(e.code, .noUpload)
        XCTAssertTrue(e.message.contains("took this upload over"), e.message)
        XCTAssertTrue(H.replies(to: 1, h.send(chunk(2000), from: 1, device: ana)).isEmpty, "once; later chunks are dropped silently")
        XCTAssertEqual(H.errorCode(to: 1, h.send(.uploadFinish(content: file), from: 1, device: ana)), .noUpload)
    }
}
