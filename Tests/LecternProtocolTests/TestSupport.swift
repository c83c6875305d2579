import XCTest
import LecternModel
@testable import LecternProtocol

func cid(_ byte: UInt8) -> ContentID { ContentID(bytes: [UInt8](repeating: byte, count: 32))! }
func token(_ byte: UInt8) -> ResumeToken { ResumeToken(bytes: [UInt8](repeating: byte, count: 16))! }

/// One sample of every message, both directions.
func sampleMessages() -> [Message] {
    let snap = Snapshot(
        revision: 9, room: "Room 4.12", floorMode: .moderated,
        floor: FloorSnapshot(holder: 2, delegate: 3, queue: [4, 5], doNotDisturb: true, graceRemainingMs: 41_500),
        devices: [
            DeviceSnapshot(id: 1, name: "Mod", role: .moderator, connected: true),
            DeviceSnapshot(id: 2, name: "Ana ✓", role: .presenter, connected: false),
        ],
        screen: ScreenSnapshot(
            content: ContentSnapshot(id: cid(0xAB), name: "deck.pdf", kind: .pdf), page: 300, pageCount: 412,
            blank: .white, clip: ClipSnapshot(state: .paused, positionMs: 1234, durationMs: 60_000, loop: true)))
    return [
        .hello(
            Hello(
                challenge: Array(0..<32), presenter: KDFParameters(rounds: 210_000, salt: Array(repeating: 7, count: 16)),
                moderator: nil, room: "Room 4.12", server: "lecternd test")),
        .hello(
            Hello(
                challenge: Array(repeating: 1, count: 32), presenter: KDFParameters(rounds: 10_000, salt: [1, 2, 3, 4, 5, 6, 7, 8]),
                moderator: KDFParameters(rounds: 20_000, salt: Array(repeating: 9, count: 64)), room: "", server: "")),
        .ping(nonce: 0xDEAD_BEEF), .pong(nonce: 1), .ok,
        .error(.unknownCommand(0x42)), .error(.tooManyAttempts(retryAfter: 33.2)), .error(.frameTooLarge(length: 0xFFFF_FFFF)),
        .state(snap), .state(Snapshot(revision: 0, room: "R", floorMode: .open, floor: FloorSnapshot(), devices: [], screen: .idle)),
        .stateRequest,
        .register(RegisterRequest(role: .presenter, proof: Array(repeating: 0x11, count: 32), resumeToken: nil, name: "Ana's phone")),
        .register(RegisterRequest(role: .moderator, proof: Array(repeating: 0x22, count: 32), resumeToken: token(5), name: "Mod")),
        .registerOK(RegisterOK(deviceID: 7, role: .presenter, resumed: true, floorRestored: false, resumeToken: token(3))),
        .registerOK(RegisterOK(deviceID: 254, role: .moderator, resumed: true, floorRestored: true, resumeToken: token(4))),
        .registerFailed(.wrongPasscode), .registerFailed(.roomFull()),
        .unregister, .unregisterOK,
        .floorRequest, .floorAck(.holder), .floorAck(.queued(position: 3)),
        .floorGranted(reason: .handedOver, by: 2), .floorWithdrawn(reason: .requestRejected, by: 1),
        .floorRelease, .floorModerate(action: .kick, target: 9), .floorModerate(action: .dndOn, target: 0),
        .control(.next), .control(.prev), .control(.goto(page: 70_000)), .control(.blank(white: true)), .control(.blank(white: false)),
        .control(.unblank), .control(.handOver(to: 12)), .control(.takeBack), .control(.returnFloor),
        .controlOK, .controlFailed(.noFloor),
        .clipPlay(content: cid(1), loop: true), .clipPlay(content: cid(2), loop: false), .clipPlayOK,
        .clipPause, .clipPauseOK, .clipStop, .clipStopOK, .clipSeek(positionMs: 90_500), .clipSeekOK, .clipResume, .clipResumeOK,
        .clipLoop(true), .clipLoop(false), .clipLoopOK,
        .present(content: cid(3), page: 256), .presentOK, .clear,
        .uploadBegin(UploadBegin(content: cid(4), size: 5_000_000_000, kind: nil, proof: nil, name: "talk.pdf")),
        .uploadBegin(UploadBegin(content: cid(5), size: 10, kind: .clip, proof: Array(repeating: 3, count: 32), name: "clip.mp4")),
        .uploadReady(UploadReady(content: cid(6), status: .sendFrom, offset: 1 << 20)),
        .uploadReady(UploadReady(content: cid(6), status: .stored, offset: 99, kind: .pdf, pageCount: 12, durationMs: 0)),
        .uploadChunk(UploadChunk(content: cid(7), offset: 4096, data: Array(repeating: 0x5A, count: 1000))),
        .uploadChunk(UploadChunk(content: cid(7), offset: 0, data: [])),
        .uploadFinish(content: cid(8)),
        .uploadStored(UploadStored(content: cid(9), kind: .clip, size: 123_456, pageCount: 0, durationMs: 61_000)),
        .uploadProgress(content: cid(10), stored: 8 << 20),
        .conversionProgress(ConversionProgress(content: cid(11), stage: .converting, ahead: 0, done: 12, total: 30, elapsedMs: 2500, budgetMs: 60000, format: "pptx")),
        .conversionProgress(ConversionProgress(content: cid(12), stage: .queued, ahead: 2, budgetMs: 60000, format: "docx")),
        .conversionCancel(content: cid(13)),
        .imagesDeck(ImagesDeck(images: [cid(14), cid(15), cid(14)], name: "IMG_0001.heic and 2 more")),
        .screenshotRequest(), .screenshotRequest(maxWidth: 640, maxHeight: 0), .screenshotRequest(maxWidth: 0, maxHeight: 0, jpeg: true),
        .screenshotData(ScreenshotChunk(width: 1920, height: 1080, totalSize: 100, offset: 50, data: Array(repeating: 1, count: 50))),
        .pagePreview(PagePreviewRequest(content: cid(11), page: 70_000, maxWidth: 480, maxHeight: 0)),
        .pagePreview(PagePreviewRequest(content: cid(12), page: 0, maxWidth: 0, maxHeight: 65_535)),
    ] + sampleInkMessages()
}

/// One or more of every pointer and ink message (§22).
func sampleInkMessages() -> [Message] {
    let p = [InkPoint(x: 0, y: 65_535), InkPoint(x: 32_768, y: 1)]
    return [
        .ink(.pointer(InkPoint(x: 16_384, y: 32_768), lifted: false)), .ink(.pointer(InkPoint(x: 65_535, y: 0), lifted: true)),
        .ink(.strokeBegin(StrokeBegin(tool: .highlighter, width: .thick, colorIndex: 8, points: p))),
        .ink(.strokeBegin(StrokeBegin())), .ink(.strokePoints(p)), .ink(.strokeEnd([])), .ink(.strokeEnd(p)),
        .ink(.strokeOK(StrokeOK(strokeID: 70_000, strokesOnPage: 500))), .ink(.undo), .ink(.erase),
        .ink(.clear(deck: false)), .ink(.clear(deck: true)), .ink(.allow(device: 7, on: true)), .ink(.allow(device: 254, on: false)),
        .ink(.fetch(content: cid(13), page: 3)), .ink(.fetch(content: nil, page: 0)),
        .ink(.page([])),
        .ink(.page([InkStroke(id: 9, author: 3, color: RGB(1, 2, 3), tool: .pen, width: .thin, points: p)])),
        .ink(.whiteboard(black: true)),
        .pagePreview(PagePreviewRequest(content: cid(12), page: 3, maxWidth: 320, maxHeight: 0, notesHalf: true)),
        .notesRequest(NotesRequest(content: cid(13), page: 0)),
        .notes(
            NotesReply(
                content: cid(13).hex, layout: .right,
                pages: [NotesReply.Page(page: 1, label: "iv", text: "Say hello ✓", source: "typed")], durationMinutes: 20, endTime: nil,
                lastMinutes: 3)),
        .notesEdit(NotesEdit(content: cid(14), page: 2, text: "Pause here.\nThen the demo.")),
        .notesFile(content: cid(15), file: Array("{\"pdfpcFormat\":2,\"pages\":[]}".utf8)),
        .timer(TimerCommand(action: .start, mode: .countdown, warnMinutes: 3, value: 20 * 60_000)),
        .timer(TimerCommand(action: .pause)),
        .gotoLabel("A-3"),
        .notesLayout(content: cid(16), layout: .left),
        .notesLayout(content: cid(16), layout: nil),
        .soundSet(SoundSetting(level: 40)), .soundSet(SoundSetting(muted: true)), .soundSet(SoundSetting(level: 0, muted: false)),
        .soundSetOK,
        .recordRequest, .recordProgress(RecordProgress(done: 3, total: 101)),
        .recordData(RecordChunk(pages: 7, totalSize: 10, offset: 4, data: [1, 2, 3])),
        .wallView,
        .pollAsk(PollDraft(question: "Best?", kind: .choice, answers: ["A", "B", "C"], correct: 1)),
        .pollAsk(PollDraft(question: "Yes?", kind: .yesno)),
        .pollAnswer(poll: 3, .choice(2)),
        .pollAnswer(poll: 0, .text("fast")),
        .pollClose(poll: 3),
        .pollShow(PollShow(poll: 3, results: true, answer: false, picks: [0, 2])),
        .questionAsk(text: "Why?", named: true),
        .questionVote(id: 9),
        .questionMark(id: 9, .hide),
        .audienceSet(.unlock),
        .viewerPointer(ViewerPointer(page: 7, point: InkPoint(x: 100, y: 65535), lifted: true)),
        .pollPrepare(content: ContentID(bytes: [UInt8](repeating: 7, count: 32))!, [PollDraft(question: "Ready?", kind: .yesno)]),
        .pollAskPrepared(content: nil, index: 2),
        .pollAskPrepared(content: ContentID(bytes: [UInt8](repeating: 9, count: 32))!, index: 0),
        .audienceFetch(AudienceFetch(what: .texts, poll: 3, offset: 50, count: 200)),
        .layoutSet(.quad), .layoutSet(.full),
        .paneSet(PaneRequest(pane: 1, .present(content: ContentID(bytes: [UInt8](repeating: 4, count: 32))!, page: 70_000))),
        .paneSet(PaneRequest(pane: 3, .clear)), .paneSet(PaneRequest(pane: 0, .assign(7))), .paneSet(PaneRequest(pane: 2, .full)),
        .paneSet(PaneRequest(pane: 0, .swap(with: 3))),
        .wallAdd(content: ContentID(bytes: [UInt8](repeating: 5, count: 32))!, page: 2),
        .panePlay(pane: 2, content: ContentID(bytes: [UInt8](repeating: 6, count: 32))!, loop: true),
        .panePlay(pane: 0, content: ContentID(bytes: [UInt8](repeating: 7, count: 32))!, loop: false),
        .share(.begin(ShareConfig(codec: .h264, source: .screen, placement: .driven, width: 1920, height: 1080, frameRate: 30, bitrate: 5_000_000))),
        .share(.ready(ShareReady(status: .waiting, pane: nil, frameRate: 30, bitrate: 5_000_000))),
        .share(.frame(ShareFrame(sequence: 1, timestamp: 33_333, key: false, data: [0, 0, 1, 0x41, 0x9A]))),
        .share(.ack(ShareAck(sequence: 1, decoded: 1, dropped: 0, queuedBytes: 0))),
        .share(.keyRequest(sequence: 2)),
        .share(.advice(ShareAdvice(bitrate: 3_000_000, frameRate: 30, reason: .network))),
        .share(.control(.resume)), .share(.moderate(device: 9, .end)), .share(.ended(.shareReplaced)),
        .share(.picture(device: 9, maxWidth: 0, maxHeight: 0)),
        .share(.audio(ShareAudio(channels: 2, sequence: 3, timestamp: 40_000, data: [0xFC, 0xFF, 0xFE]))),
        .audiencePage(
            AudiencePage(
                what: "questions", poll: nil, offset: 0, total: 1,
                questions: [
                    QuestionSnapshot(id: 1, text: "Why?", name: nil, votes: 2, answered: false, hidden: false)
                ], texts: nil)),
        .state(
            Snapshot(
                revision: 1, room: "R", floorMode: .open, floor: FloorSnapshot(), devices: [], screen: .idle,
                console: ConsoleSnapshot(
                    slide: SlideSnapshot(label: "7", index: 7, count: 20, step: 2, steps: 3), notesLayout: .none, hasNotes: true,
                    notesRevision: 4, wrap: false,
                    timer: TimerSnapshot(
                        mode: .countdown, running: true, elapsedMs: 1000, durationMs: 60_000, endsAtMs: nil, remainingMs: 59_000, warning: false,
                        warnMinutes: 5, serverTimeMs: 1_800_000_000_000)))),
    ]
}
