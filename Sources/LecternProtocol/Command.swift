/// Who sends a message.
public enum Sender: Sendable, Equatable {
    case client
    case server
    case either
}

/// Every command byte of protocol version 1 (docs/protocol.md, "Command table").
public enum Command: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    // registration (vPresent 0x01–0x05)
    case register = 0x01
    case registerOK = 0x02
    case registerFailed = 0x03
    case unregister = 0x04
    case unregisterOK = 0x05
    // the floor (vPresent 0x06–0x09; 0x0A, 0x0B new)
    case floorRequest = 0x06
    case floorAck = 0x07
    case floorGranted = 0x08
    case floorWithdrawn = 0x09
    case floorRelease = 0x0A
    case floorModerate = 0x0B
    // control signals (vPresent 0x0C–0x0E, wider body)
    case control = 0x0C
    case controlOK = 0x0D
    case controlFailed = 0x0E
    // session (new)
    case hello = 0x10
    case ping = 0x11
    case pong = 0x12
    case ok = 0x13
    case error = 0x14
    case state = 0x15
    case stateRequest = 0x16
    // clips (vPresent 0x20–0x27; resume 0x28/0x29 new)
    case clipPlay = 0x20
    case clipPlayOK = 0x21
    case clipPause = 0x22
    case clipPauseOK = 0x23
    case clipStop = 0x24
    case clipStopOK = 0x25
    case clipSeek = 0x26
    case clipSeekOK = 0x27
    case clipResume = 0x28
    case clipResumeOK = 0x29
    // content on screen (0x30/0x31 reuse vPresent's PDF numbers)
    case present = 0x30
    case presentOK = 0x31
    case clear = 0x32
    // 0x34/0x35 reserved for annotation
    // uploads (new, replace vPresent's 0x28–0x2B temporary socket)
    case uploadBegin = 0x38
    case uploadReady = 0x39
    case uploadChunk = 0x3A
    case uploadFinish = 0x3B
    case uploadStored = 0x3C
    case uploadProgress = 0x3D
    // screenshot (new)
    case screenshotRequest = 0x50
    case screenshotData = 0x51
    // page preview (new)
    case pagePreview = 0x52

    public var sender: Sender {
        switch self {
        case .register, .unregister, .floorRequest, .floorRelease, .floorModerate, .control, .stateRequest,
             .clipPlay, .clipPause, .clipStop, .clipSeek, .clipResume, .present, .clear,
             .uploadBegin, .uploadChunk, .uploadFinish, .screenshotRequest, .pagePreview:
            return .client
        case .ping, .pong:
            return .either
        default:
            return .server
        }
    }

    public var description: String {
        switch self {
        case .register: "register"
        case .registerOK: "register-ok"
        case .registerFailed: "register-failed"
        case .unregister: "unregister"
        case .unregisterOK: "unregister-ok"
        case .floorRequest: "floor-request"
        case .floorAck: "floor-ack"
        case .floorGranted: "floor-granted"
        case .floorWithdrawn: "floor-withdrawn"
        case .floorRelease: "floor-release"
        case .floorModerate: "floor-moderate"
        case .control: "control"
        case .controlOK: "control-ok"
        case .controlFailed: "control-failed"
        case .hello: "hello"
        case .ping: "ping"
        case .pong: "pong"
        case .ok: "ok"
        case .error: "error"
        case .state: "state"
        case .stateRequest: "state-request"
        case .clipPlay: "clip-play"
        case .clipPlayOK: "clip-play-ok"
        case .clipPause: "clip-pause"
        case .clipPauseOK: "clip-pause-ok"
        case .clipStop: "clip-stop"
        case .clipStopOK: "clip-stop-ok"
        case .clipSeek: "clip-seek"
        case .clipSeekOK: "clip-seek-ok"
        case .clipResume: "clip-resume"
        case .clipResumeOK: "clip-resume-ok"
        case .present: "present"
        case .presentOK: "present-ok"
        case .clear: "clear"
        case .uploadBegin: "upload-begin"
        case .uploadReady: "upload-ready"
        case .uploadChunk: "upload-chunk"
        case .uploadFinish: "upload-finish"
        case .uploadStored: "upload-stored"
        case .uploadProgress: "upload-progress"
        case .screenshotRequest: "screenshot-request"
        case .screenshotData: "screenshot-data"
        case .pagePreview: "page-preview"
        }
    }
}
