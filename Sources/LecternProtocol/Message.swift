import LecternModel

/// Every message of protocol version 1, both directions.
public enum Message: Equatable, Sendable {
    // session
    case hello(Hello)
    case ping(nonce: UInt32)
    case pong(nonce: UInt32)
    case ok
    case error(LecternError)
    case state(Snapshot)
    case stateRequest
    // registration
    case register(RegisterRequest)
    case registerOK(RegisterOK)
    case registerFailed(LecternError)
    case unregister
    case unregisterOK
    // floor
    case floorRequest
    case floorAck(FloorAck)
    case floorGranted(reason: FloorGrantReason, by: DeviceID)
    case floorWithdrawn(reason: FloorLossReason, by: DeviceID)
    case floorRelease
    case floorModerate(action: FloorAction, target: DeviceID)
    // control signals
    case control(ControlSignal)
    case controlOK
    case controlFailed(LecternError)
    // clips
    case clipPlay(content: ContentID, loop: Bool)
    case clipPlayOK
    case clipPause
    case clipPauseOK
    case clipStop
    case clipStopOK
    case clipSeek(positionMs: UInt32)
    case clipSeekOK
    /// Loop the clip on screen from now on, or not (0xC0): it then ends at its end.
    case clipLoop(Bool)
    case clipLoopOK
    case clipResume
    case clipResumeOK
    // content on screen
    case present(content: ContentID, page: UInt32)
    case presentOK
    case clear
    // uploads
    case uploadBegin(UploadBegin)
    case uploadReady(UploadReady)
    case uploadChunk(UploadChunk)
    case uploadFinish(content: ContentID)
    case uploadStored(UploadStored)
    case uploadProgress(content: ContentID, stored: UInt64)
    // converted files (§30)
    case conversionProgress(ConversionProgress)
    /// Stop converting this upload of mine (a moderator: anyone's).
    case conversionCancel(content: ContentID)
    /// Make these stored images one deck, in this order (§30.9).
    case imagesDeck(ImagesDeck)
    // screenshot
    /// The output's frame, at most `maxWidth`×`maxHeight` (0, 0: the output's size, exactly).
    /// `jpeg`: a JPEG is welcome instead of the PNG where it is smaller (a photographic frame).
    case screenshotRequest(maxWidth: UInt16 = 0, maxHeight: UInt16 = 0, jpeg: Bool = false)
    case screenshotData(ScreenshotChunk)
    // page preview (answered with screenshot-data)
    case pagePreview(PagePreviewRequest)
    // pointer and ink (§22)
    case ink(InkMessage)
    // sound
    case soundSet(SoundSetting)
    case soundSetOK
    // the meeting record (§26)
    case recordRequest
    case recordProgress(RecordProgress)
    case recordData(RecordChunk)
    // the meeting (§27): this connection is a wall display, not a person
    case wallView
    // the presenter console (§20)
    case notesRequest(NotesRequest)
    case notes(NotesReply)
    case notesEdit(NotesEdit)
    /// A `.pdfpc` file's bytes, for the upload `content`.
    case notesFile(content: ContentID, file: [UInt8])
    case timer(TimerCommand)
    case gotoLabel(String)
    /// nil: detect from the pages' shape again.
    case notesLayout(content: ContentID, layout: NotesLayout?)
    // the audience (§24)
    case pollAsk(PollDraft)
    /// poll 0: the newest poll.
    case pollAnswer(poll: UInt32, PollAnswer)
    case pollClose(poll: UInt32)
    case pollShow(PollShow)
    case questionAsk(text: String, named: Bool)
    case questionVote(id: UInt32)
    case questionMark(id: UInt32, QuestionAction)
    case audienceSet(AudienceSetting)
    /// To viewers: where the presenter points (throttled, §24.2).
    case viewerPointer(ViewerPointer)
    /// The deck's prepared polls, replaced whole (§24.3).
    case pollPrepare(content: ContentID, [PollDraft])
    /// Asks a prepared poll of a deck (nil: the deck on the wall); `index` 0-based.
    case pollAskPrepared(content: ContentID?, index: Int)
    /// A page of the questions or of a poll's open-text answers (§24.6).
    case audienceFetch(AudienceFetch)
    case audiencePage(AudiencePage)
    // the wall's layout (§9.7)
    case layoutSet(WallLayout)
    case paneSet(PaneRequest)
    /// Adds a page to the wall beside what it shows (an open room's presenter, §9.7).
    case wallAdd(content: ContentID, page: UInt32)
    /// Plays a clip in a pane (the moderator, §9.7).
    case panePlay(pane: UInt8, content: ContentID, loop: Bool)
    // live sharing (§29)
    case share(ShareMessage)

    public var command: Command {
        switch self {
        case .hello: .hello
        case .ping: .ping
        case .pong: .pong
        case .ok: .ok
        case .error: .error
        case .state: .state
        case .stateRequest: .stateRequest
        case .register: .register
        case .registerOK: .registerOK
        case .registerFailed: .registerFailed
        case .unregister: .unregister
        case .unregisterOK: .unregisterOK
        case .floorRequest: .floorRequest
        case .floorAck: .floorAck
        case .floorGranted: .floorGranted
        case .floorWithdrawn: .floorWithdrawn
        case .floorRelease: .floorRelease
        case .floorModerate: .floorModerate
        case .control: .control
        case .controlOK: .controlOK
        case .controlFailed: .controlFailed
        case .clipPlay: .clipPlay
        case .clipPlayOK: .clipPlayOK
        case .clipPause: .clipPause
        case .clipPauseOK: .clipPauseOK
        case .clipStop: .clipStop
        case .clipStopOK: .clipStopOK
        case .clipSeek: .clipSeek
        case .clipSeekOK: .clipSeekOK
        case .clipLoop: .clipLoop
        case .clipLoopOK: .clipLoopOK
        case .clipResume: .clipResume
        case .clipResumeOK: .clipResumeOK
        case .present: .present
        case .presentOK: .presentOK
        case .clear: .clear
        case .uploadBegin: .uploadBegin
        case .uploadReady: .uploadReady
        case .uploadChunk: .uploadChunk
        case .uploadFinish: .uploadFinish
        case .uploadStored: .uploadStored
        case .uploadProgress: .uploadProgress
        case .conversionProgress: .conversionProgress
        case .conversionCancel: .conversionCancel
        case .imagesDeck: .imagesDeck
        case .screenshotRequest: .screenshotRequest
        case .screenshotData: .screenshotData
        case .pagePreview: .pagePreview
        case .ink(let i): i.command
        case .soundSet: .soundSet
        case .soundSetOK: .soundSetOK
        case .recordRequest: .recordRequest
        case .recordProgress: .recordProgress
        case .recordData: .recordData
        case .wallView: .wallView
        case .notesRequest: .notesRequest
        case .notes: .notes
        case .notesEdit: .notesEdit
        case .notesFile: .notesFile
        case .timer: .timer
        case .gotoLabel: .gotoLabel
        case .notesLayout: .notesLayout
        case .pollAsk: .pollAsk
        case .pollAnswer: .pollAnswer
        case .pollClose: .pollClose
        case .pollShow: .pollShow
        case .questionAsk: .questionAsk
        case .questionVote: .questionVote
        case .questionMark: .questionMark
        case .audienceSet: .audienceSet
        case .viewerPointer: .viewerPointer
        case .pollPrepare: .pollPrepare
        case .pollAskPrepared: .pollAskPrepared
        case .audienceFetch: .audienceFetch
        case .audiencePage: .audiencePage
        case .layoutSet: .layoutSet
        case .paneSet: .paneSet
        case .wallAdd: .wallAdd
        case .panePlay: .panePlay
        case .share(let m): m.command
        }
    }

    /// The error a failure of this request travels in, if the message is an error.
    public var error: LecternError? {
        switch self {
        case .error(let e), .registerFailed(let e), .controlFailed(let e), .share(.ended(let e)): e
        default: nil
        }
    }

    /// The message that carries `error` as the reply to a request with command byte
    /// `request`: register-failed for register, control-failed for control, error otherwise.
    public static func failure(replyingTo request: UInt8, _ error: LecternError) -> Message {
        switch request {
        case Command.register.rawValue: .registerFailed(error)
        case Command.control.rawValue: .controlFailed(error)
        default: .error(error)
        }
    }

    /// The success reply the server sends when a request needs nothing but "done".
    public static func success(replyingTo request: Command) -> Message? {
        switch request {
        case .unregister: .unregisterOK
        case .control: .controlOK
        case .clipPlay, .panePlay: .clipPlayOK
        case .clipPause: .clipPauseOK
        case .clipStop: .clipStopOK
        case .clipSeek: .clipSeekOK
        case .clipLoop: .clipLoopOK
        case .clipResume: .clipResumeOK
        case .soundSet: .soundSetOK
        case .present: .presentOK
        case .floorRelease, .floorModerate, .clear, .inkUndo, .inkErase, .inkClear, .inkAllow: .ok
        case .pollAsk, .pollAnswer, .pollClose, .pollShow, .questionAsk, .questionVote, .questionMark, .audienceSet, .pollPrepare, .pollAskPrepared: .ok
        case .whiteboardNew, .wallAdd: .presentOK
        case .conversionCancel: .ok
        case .layoutSet, .paneSet, .shareControl, .shareModerate: .ok
        default: nil
        }
    }

    // MARK: encoding

    /// The whole frame: header (with this command, `deviceID` and `tag`) and body.
    public func encode(tag: UInt16, deviceID: UInt8) -> [UInt8] {
        let body = encodeBody()
        var w = ByteWriter(capacity: FrameHeader.size + body.count)
        FrameHeader(
            command: command.rawValue, deviceID: deviceID, tag: tag,
            length: UInt32(truncatingIfNeeded: FrameHeader.size + body.count)
        ).encode(into: &w)
        w.bytes(body)
        return w.bytes
    }

    /// The body alone. Each body's layout is in `Body` below, its encoder beside its decoder.
    public func encodeBody() -> [UInt8] {
        var w = ByteWriter()
        switch self {
        case .hello(let h): Body.hello(h, &w)
        case .ping(let n), .pong(let n): Body.nonce(n, &w)
        case .error(let e), .registerFailed(let e), .controlFailed(let e): Body.error(e, &w)
        case .state(let s): Body.state(s, &w)
        case .register(let r): Body.register(r, &w)
        case .registerOK(let r): Body.registerOK(r, &w)
        case .floorAck(let a): Body.floorAck(a, &w)
        case .floorGranted(let reason, let by): Body.floorGranted(reason, by, &w)
        case .floorWithdrawn(let reason, let by): Body.floorWithdrawn(reason, by, &w)
        case .floorModerate(let action, let target): Body.floorModerate(action, target, &w)
        case .control(let s): Body.control(s, &w)
        case .clipPlay(let c, let loop): Body.clipPlay(c, loop, &w)
        case .clipSeek(let ms): Body.clipSeek(ms, &w)
        case .clipLoop(let on): w.u8(on ? 1 : 0)
        case .present(let c, let page): Body.present(c, page, &w)
        case .uploadBegin(let b): Body.uploadBegin(b, &w)
        case .uploadReady(let r): Body.uploadReady(r, &w)
        case .uploadChunk(let c): Body.uploadChunk(c, &w)
        case .uploadFinish(let c): Body.uploadFinish(c, &w)
        case .uploadStored(let s): Body.uploadStored(s, &w)
        case .uploadProgress(let c, let stored): Body.uploadProgress(c, stored, &w)
        case .conversionProgress(let p): Body.conversionProgress(p, &w)
        case .conversionCancel(let c): w.bytes(c.bytes)
        case .imagesDeck(let d): Body.imagesDeck(d, &w)
        case .screenshotRequest(let mw, let mh, let jpeg): Body.screenshotRequest(mw, mh, jpeg, &w)
        case .screenshotData(let s): Body.screenshotData(s, &w)
        case .pagePreview(let p): Body.pagePreview(p, &w)
        case .ink(let i): i.encode(&w)
        case .soundSet(let s): Body.soundSet(s, &w)
        case .recordProgress(let p): Body.recordProgress(p, &w)
        case .recordData(let c): Body.recordData(c, &w)
        case .notesRequest(let n): Body.notesRequest(n, &w)
        case .notes(let n): Body.notes(n, &w)
        case .notesEdit(let e): Body.notesEdit(e, &w)
        case .notesFile(let c, let file): w.bytes(c.bytes); w.bytes(file)
        case .timer(let t): Body.timer(t, &w)
        case .gotoLabel(let label): w.string16(label)
        case .notesLayout(let c, let layout): w.bytes(c.bytes); w.u8(layout?.wireValue ?? 0xFF)
        case .pollAsk(let d): Body.pollAsk(d, &w)
        case .pollAnswer(let poll, let a): Body.pollAnswer(poll, a, &w)
        case .pollClose(let poll): w.u32(poll)
        case .pollShow(let s): Body.pollShow(s, &w)
        case .questionAsk(let text, let named): Body.questionAsk(text, named, &w)
        case .questionVote(let id): w.u32(id)
        case .questionMark(let id, let a): w.u32(id); w.u8(a.rawValue)
        case .audienceSet(let s): w.u8(s.rawValue)
        case .viewerPointer(let p): Body.viewerPointer(p, &w)
        case .pollPrepare(let c, let drafts): Body.pollPrepare(c, drafts, &w)
        case .pollAskPrepared(let c, let i): w.bytes(c?.bytes ?? [UInt8](repeating: 0, count: 32)); w.u16(UInt16(clamping: i))
        case .audienceFetch(let f): Body.audienceFetch(f, &w)
        case .audiencePage(let p): Body.audiencePage(p, &w)
        case .layoutSet(let l): w.u8(l.wireValue)
        case .paneSet(let p): Body.paneSet(p, &w)
        case .wallAdd(let c, let page): Body.present(c, page, &w)
        case .panePlay(let pane, let c, let loop): Body.panePlay(pane, c, loop, &w)
        case .share(let m): m.encode(&w)
        case .ok, .stateRequest, .unregister, .unregisterOK, .floorRequest, .floorRelease, .controlOK,
            .clipPlayOK, .clipPause, .clipPauseOK, .clipStop, .clipStopOK, .clipSeekOK, .clipResume, .clipResumeOK,
            .presentOK, .clear, .soundSetOK, .clipLoopOK, .recordRequest, .wallView:
            break   // no body
        }
        return w.bytes
    }
}
