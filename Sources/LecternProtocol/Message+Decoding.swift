import LecternModel

/// Reading a frame's body into a `Message` (the encoding is in Message.swift).
extension Message {

    /// Decodes a frame. Throws a `LecternError`:
    /// - `unknownCommand` (connection stays open) for a command byte this version does not
    ///   define, or one that `sentBy` may not send;
    /// - `malformedBody` (closes the connection) for a body that is truncated, too long, or
    ///   carries an invalid value.
    public static func decode(header: FrameHeader, body: [UInt8], sentBy: Sender? = nil) throws(LecternError) -> Message {
        guard let command = Command(rawValue: header.command) else { throw .unknownCommand(header.command) }
        if let sentBy, sentBy != .either, command.sender != .either, command.sender != sentBy {
            throw .unknownCommand(header.command)
        }
        do {
            return try decodeBody(command, body)
        } catch let e as WireError {
            let reason: String
            switch e {
            case .truncated: reason = "the body is shorter than its fields"
            case .trailingBytes(let n): reason = "\(n) unexpected bytes after the last field"
            case .invalid(let why): reason = why
            }
            throw .malformedBody(command: header.command, reason: reason)
        } catch let e as LecternError {
            throw e
        } catch {
            throw .malformedBody(command: header.command, reason: "\(error)")
        }
    }

    public static func decode(_ frame: WireFrame, sentBy: Sender? = nil) throws(LecternError) -> Message {
        try decode(header: frame.header, body: frame.body, sentBy: sentBy)
    }

    private static func decodeBody(_ command: Command, _ body: [UInt8]) throws -> Message {
        var r = ByteReader(body)
        let m: Message
        switch command {
        case .hello: m = .hello(try Body.hello(&r))
        case .ping: m = .ping(nonce: try Body.nonce(&r))
        case .pong: m = .pong(nonce: try Body.nonce(&r))
        case .error: m = .error(try Body.error(&r))
        case .registerFailed: m = .registerFailed(try Body.error(&r))
        case .controlFailed: m = .controlFailed(try Body.error(&r))
        case .state: m = .state(try Body.state(&r))
        case .register: m = .register(try Body.register(&r))
        case .registerOK: m = .registerOK(try Body.registerOK(&r))
        case .floorAck: m = .floorAck(try Body.floorAck(&r))
        case .floorGranted: m = try Body.floorGranted(&r)
        case .floorWithdrawn: m = try Body.floorWithdrawn(&r)
        case .floorModerate: m = try Body.floorModerate(&r)
        case .control: m = .control(try Body.control(&r))
        case .clipPlay: m = try Body.clipPlay(&r)
        case .clipSeek: m = .clipSeek(positionMs: try Body.clipSeek(&r))
        case .clipLoop: m = .clipLoop(try Body.flag(&r, "clip-loop"))
        case .present: m = try Body.present(&r)
        case .uploadBegin: m = .uploadBegin(try Body.uploadBegin(&r))
        case .uploadReady: m = .uploadReady(try Body.uploadReady(&r))
        case .uploadChunk: m = .uploadChunk(try Body.uploadChunk(&r))
        case .uploadFinish: m = .uploadFinish(content: try Body.uploadFinish(&r))
        case .uploadStored: m = .uploadStored(try Body.uploadStored(&r))
        case .uploadProgress: m = try Body.uploadProgress(&r)
        case .conversionProgress: m = .conversionProgress(try Body.conversionProgress(&r))
        case .conversionCancel: m = .conversionCancel(content: try Body.contentID(&r))
        case .imagesDeck: m = .imagesDeck(try Body.imagesDeck(&r))
        case .screenshotRequest: m = try Body.screenshotRequest(&r)
        case .screenshotData: m = .screenshotData(try Body.screenshotData(&r))
        case .pagePreview: m = .pagePreview(try Body.pagePreview(&r))
        case .pointer, .strokeBegin, .strokePoints, .strokeEnd, .strokeOK, .inkUndo, .inkErase, .inkClear, .inkAllow, .inkFetch,
            .inkPage, .whiteboardNew:
            m = .ink(try InkMessage.decode(command, &r))
        case .soundSet: m = .soundSet(try Body.soundSet(&r))
        case .soundSetOK: m = .soundSetOK
        case .recordRequest: m = .recordRequest
        case .wallView: m = .wallView
        case .recordProgress: m = .recordProgress(try Body.recordProgress(&r))
        case .recordData: m = .recordData(try Body.recordData(&r))
        case .notesRequest: m = .notesRequest(try Body.notesRequest(&r))
        case .notes: m = .notes(try Body.notes(&r))
        case .notesEdit: m = .notesEdit(try Body.notesEdit(&r))
        case .notesFile: m = try Body.notesFile(&r)
        case .timer: m = .timer(try Body.timer(&r))
        case .gotoLabel: m = .gotoLabel(try r.string16(max: ConsoleLimits.maxLabelBytes, field: "label"))
        case .notesLayout: m = try Body.notesLayout(&r)
        case .pollAsk: m = .pollAsk(try Body.pollAsk(&r))
        case .pollAnswer: m = try Body.pollAnswer(&r)
        case .pollClose: m = .pollClose(poll: try r.u32())
        case .pollShow: m = .pollShow(try Body.pollShow(&r))
        case .questionAsk: m = try Body.questionAsk(&r)
        case .questionVote: m = .questionVote(id: try r.u32())
        case .questionMark: m = try Body.questionMark(&r)
        case .audienceSet: m = try Body.audienceSet(&r)
        case .viewerPointer: m = .viewerPointer(try Body.viewerPointer(&r))
        case .pollPrepare: m = try Body.pollPrepare(&r)
        case .pollAskPrepared: m = try Body.pollAskPrepared(&r)
        case .audienceFetch: m = .audienceFetch(try Body.audienceFetch(&r))
        case .audiencePage: m = .audiencePage(try Body.audiencePage(&r))
        case .layoutSet: m = try Body.layoutSet(&r)
        case .paneSet: m = try Body.paneSet(&r)
        case .wallAdd: m = try Body.wallAdd(&r)
        case .panePlay: m = try Body.panePlay(&r)
        case .shareBegin, .shareReady, .shareFrame, .shareAck, .shareKeyRequest, .shareAdvice, .shareControl, .shareModerate, .shareEnded,
            .sharePicture, .shareAudio:
            m = .share(try ShareMessage.decode(command, &r))
        case .ok: m = .ok
        case .stateRequest: m = .stateRequest
        case .unregister: m = .unregister
        case .unregisterOK: m = .unregisterOK
        case .floorRequest: m = .floorRequest
        case .floorRelease: m = .floorRelease
        case .controlOK: m = .controlOK
        case .clipPlayOK: m = .clipPlayOK
        case .clipPause: m = .clipPause
        case .clipPauseOK: m = .clipPauseOK
        case .clipStop: m = .clipStop
        case .clipStopOK: m = .clipStopOK
        case .clipSeekOK: m = .clipSeekOK
        case .clipLoopOK: m = .clipLoopOK
        case .clipResume: m = .clipResume
        case .clipResumeOK: m = .clipResumeOK
        case .presentOK: m = .presentOK
        case .clear: m = .clear
        }
        try r.expectEnd()
        return m
    }
}
