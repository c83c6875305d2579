/// Who sends a message.
public enum Sender: Sendable, Equatable {
    case client
    case server
    case either
}

/// Every command byte of protocol version 1 (docs/protocol.md, "Command table").
///
/// A command is defined once, by its row in `definition` below: its byte, its name and who
/// sends it. The cases are only the names Swift switches on (the compiler makes every case
/// have a row); `rawValue`, `init(rawValue:)`, `description` and `sender` all read the rows.
/// The web remote's copy (Web/core/protocol.js) is checked against these rows by
/// Tests/LecternWebTests/ProtocolTableDriftTests.swift.
public enum Command: Sendable, CaseIterable, CustomStringConvertible, RawRepresentable {
    case register, registerOK, registerFailed, unregister, unregisterOK
    case floorRequest, floorAck, floorGranted, floorWithdrawn, floorRelease, floorModerate
    case control, controlOK, controlFailed
    case hello, ping, pong, ok, error, state, stateRequest
    case clipPlay, clipPlayOK, clipPause, clipPauseOK, clipStop, clipStopOK, clipSeek, clipSeekOK, clipResume, clipResumeOK
    case present, presentOK, clear
    case pointer, strokeBegin, strokePoints, strokeEnd
    case uploadBegin, uploadReady, uploadChunk, uploadFinish, uploadStored, uploadProgress
    case conversionProgress, conversionCancel
    case imagesDeck
    case screenshotRequest, screenshotData
    case pagePreview
    case notesRequest, notes, notesEdit, notesFile, timer, gotoLabel, notesLayout
    case pollAsk, pollAnswer, pollClose, pollShow, questionAsk, questionVote, questionMark, audienceSet, viewerPointer, pollPrepare, pollAskPrepared
    case audienceFetch, audiencePage
    case strokeOK, inkUndo, inkErase, inkClear, inkAllow, inkFetch, inkPage, whiteboardNew
    case soundSet, soundSetOK
    case clipLoop, clipLoopOK
    case recordRequest, recordProgress, recordData
    case layoutSet, paneSet, wallAdd, panePlay
    case wallView
    case shareBegin, shareReady, shareFrame, shareAck, shareKeyRequest, shareAdvice, shareControl, shareModerate, shareEnded, sharePicture, shareAudio

    /// One row of the command table.
    public struct Definition: Sendable, Equatable {
        /// The command byte.
        public let code: UInt8
        /// The name docs/protocol.md uses ("register-ok").
        public let name: String
        public let sender: Sender
        init(_ code: UInt8, _ name: String, _ sender: Sender) {
            self.code = code
            self.name = name
            self.sender = sender
        }
    }

    /// The command table: the one place a command's byte, name and sender are written.
    public var definition: Definition {
        switch self {
        // registration (vPresent 0x01–0x05)
        case .register: Definition(0x01, "register", .client)
        case .registerOK: Definition(0x02, "register-ok", .server)
        case .registerFailed: Definition(0x03, "register-failed", .server)
        case .unregister: Definition(0x04, "unregister", .client)
        case .unregisterOK: Definition(0x05, "unregister-ok", .server)
        // the floor (vPresent 0x06–0x09; 0x0A, 0x0B new)
        case .floorRequest: Definition(0x06, "floor-request", .client)
        case .floorAck: Definition(0x07, "floor-ack", .server)
        case .floorGranted: Definition(0x08, "floor-granted", .server)
        case .floorWithdrawn: Definition(0x09, "floor-withdrawn", .server)
        case .floorRelease: Definition(0x0A, "floor-release", .client)
        case .floorModerate: Definition(0x0B, "floor-moderate", .client)
        // control signals (vPresent 0x0C–0x0E, wider body)
        case .control: Definition(0x0C, "control", .client)
        case .controlOK: Definition(0x0D, "control-ok", .server)
        case .controlFailed: Definition(0x0E, "control-failed", .server)
        // session (new)
        case .hello: Definition(0x10, "hello", .server)
        case .ping: Definition(0x11, "ping", .either)
        case .pong: Definition(0x12, "pong", .either)
        case .ok: Definition(0x13, "ok", .server)
        case .error: Definition(0x14, "error", .server)
        case .state: Definition(0x15, "state", .server)
        case .stateRequest: Definition(0x16, "state-request", .client)
        // clips (vPresent 0x20–0x27; resume 0x28/0x29 new)
        case .clipPlay: Definition(0x20, "clip-play", .client)
        case .clipPlayOK: Definition(0x21, "clip-play-ok", .server)
        case .clipPause: Definition(0x22, "clip-pause", .client)
        case .clipPauseOK: Definition(0x23, "clip-pause-ok", .server)
        case .clipStop: Definition(0x24, "clip-stop", .client)
        case .clipStopOK: Definition(0x25, "clip-stop-ok", .server)
        case .clipSeek: Definition(0x26, "clip-seek", .client)
        case .clipSeekOK: Definition(0x27, "clip-seek-ok", .server)
        case .clipLoop: Definition(0xC0, "clip-loop", .client)
        case .clipLoopOK: Definition(0xC1, "clip-loop-ok", .server)
        case .clipResume: Definition(0x28, "clip-resume", .client)
        case .clipResumeOK: Definition(0x29, "clip-resume-ok", .server)
        // content on screen (0x30/0x31 reuse vPresent's PDF numbers)
        case .present: Definition(0x30, "present", .client)
        case .presentOK: Definition(0x31, "present-ok", .server)
        case .clear: Definition(0x32, "clear", .client)
        // pointer and ink (§22; 0x34/0x35 were reserved for annotation)
        case .pointer: Definition(0x34, "pointer", .client)
        case .strokeBegin: Definition(0x35, "stroke-begin", .client)
        case .strokePoints: Definition(0x36, "stroke-points", .client)
        case .strokeEnd: Definition(0x37, "stroke-end", .client)
        case .strokeOK: Definition(0x70, "stroke-ok", .server)
        case .inkUndo: Definition(0x71, "ink-undo", .client)
        case .inkErase: Definition(0x72, "ink-erase", .client)
        case .inkClear: Definition(0x73, "ink-clear", .client)
        case .inkAllow: Definition(0x74, "ink-allow", .client)
        case .inkFetch: Definition(0x75, "ink-fetch", .client)
        case .inkPage: Definition(0x76, "ink-page", .server)
        case .whiteboardNew: Definition(0x77, "whiteboard-new", .client)
        // uploads (new, replace vPresent's 0x28–0x2B temporary socket)
        case .uploadBegin: Definition(0x38, "upload-begin", .client)
        case .uploadReady: Definition(0x39, "upload-ready", .server)
        case .uploadChunk: Definition(0x3A, "upload-chunk", .client)
        case .uploadFinish: Definition(0x3B, "upload-finish", .client)
        case .uploadStored: Definition(0x3C, "upload-stored", .server)
        case .uploadProgress: Definition(0x3D, "upload-progress", .server)
        // converted files (§30): 0x40–0x43 are kept for them
        case .conversionProgress: Definition(0x3E, "conversion-progress", .server)
        case .conversionCancel: Definition(0x3F, "conversion-cancel", .client)
        // photos and images (§30.9): 0x44–0x47
        case .imagesDeck: Definition(0x44, "images-deck", .client)
        // screenshot (new)
        case .screenshotRequest: Definition(0x50, "screenshot-request", .client)
        case .screenshotData: Definition(0x51, "screenshot-data", .server)
        // page preview (new)
        case .pagePreview: Definition(0x52, "page-preview", .client)
        // sound (new, §23)
        case .soundSet: Definition(0xA0, "sound-set", .client)
        case .soundSetOK: Definition(0xA1, "sound-set-ok", .server)
        // the meeting record (§26)
        case .recordRequest: Definition(0xB0, "record-request", .client)
        case .recordProgress: Definition(0xB1, "record-progress", .server)
        case .recordData: Definition(0xB2, "record-data", .server)
        // the wall's layout (§9.7, protocol 1.1)
        case .layoutSet: Definition(0x90, "layout-set", .client)
        case .paneSet: Definition(0x91, "pane-set", .client)
        case .wallAdd: Definition(0x92, "wall-add", .client)
        case .panePlay: Definition(0x93, "pane-play", .client)
        // the meeting (§27)
        case .wallView: Definition(0x98, "wall-view", .client)
        // live sharing (§29)
        case .shareBegin: Definition(0xD0, "share-begin", .client)
        case .shareReady: Definition(0xD1, "share-ready", .server)
        case .shareFrame: Definition(0xD2, "share-frame", .client)
        case .shareAck: Definition(0xD3, "share-ack", .server)
        case .shareKeyRequest: Definition(0xD4, "share-key-request", .server)
        case .shareAdvice: Definition(0xD5, "share-advice", .server)
        case .shareControl: Definition(0xD6, "share-control", .client)
        case .shareModerate: Definition(0xD7, "share-moderate", .client)
        case .shareEnded: Definition(0xD8, "share-ended", .server)
        case .sharePicture: Definition(0xD9, "share-picture", .client)
        case .shareAudio: Definition(0xDA, "share-audio", .client)
        // the presenter console (§20)
        case .notesRequest: Definition(0x60, "notes-request", .client)
        case .notes: Definition(0x61, "notes", .server)
        case .notesEdit: Definition(0x62, "notes-edit", .client)
        case .notesFile: Definition(0x63, "notes-file", .client)
        case .timer: Definition(0x64, "timer", .client)
        case .gotoLabel: Definition(0x65, "goto-label", .client)
        case .notesLayout: Definition(0x66, "notes-layout", .client)
        // the audience (§24)
        case .pollAsk: Definition(0x80, "poll-ask", .client)
        case .pollAnswer: Definition(0x81, "poll-answer", .client)
        case .pollClose: Definition(0x82, "poll-close", .client)
        case .pollShow: Definition(0x83, "poll-show", .client)
        case .questionAsk: Definition(0x84, "question-ask", .client)
        case .questionVote: Definition(0x85, "question-vote", .client)
        case .questionMark: Definition(0x86, "question-mark", .client)
        case .audienceSet: Definition(0x87, "audience-set", .client)
        case .viewerPointer: Definition(0x88, "viewer-pointer", .server)
        case .pollPrepare: Definition(0x89, "poll-prepare", .client)
        case .pollAskPrepared: Definition(0x8A, "poll-ask-prepared", .client)
        case .audienceFetch: Definition(0x8B, "audience-fetch", .client)
        case .audiencePage: Definition(0x8C, "audience-page", .server)
        }
    }

    /// The command byte.
    public var rawValue: UInt8 { definition.code }
    public var sender: Sender { definition.sender }
    public var description: String { definition.name }

    /// The command with this byte; nil for a byte this version does not define.
    public init?(rawValue: UInt8) {
        guard let c = Self.byCode[Int(rawValue)] else { return nil }
        self = c
    }

    /// Byte → command, from the table (a byte in two rows stops here, in any test run).
    private static let byCode: [Command?] = {
        var table = [Command?](repeating: nil, count: 256)
        for c in allCases {
            precondition(table[Int(c.rawValue)] == nil, "command byte \(c.rawValue) is in the table twice")
            table[Int(c.rawValue)] = c
        }
        return table
    }()
}
