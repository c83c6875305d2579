import LecternCore

/// A u16 error code. A struct rather than an enum so that a client can carry codes a
/// newer server invents; the known ones are the static members, grouped by area in the
/// high byte (docs/protocol.md, "Error codes").
public struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public var description: String { "0x" + hexString([UInt8(rawValue >> 8), UInt8(rawValue & 0xFF)]).uppercased() }

    // 0x00xx framing and session
    public static let malformedFrame = ErrorCode(rawValue: 0x0001)
    public static let frameTooLarge = ErrorCode(rawValue: 0x0002)
    public static let malformedBody = ErrorCode(rawValue: 0x0003)
    public static let unknownCommand = ErrorCode(rawValue: 0x0004)
    public static let wrongDeviceID = ErrorCode(rawValue: 0x0005)
    public static let notRegistered = ErrorCode(rawValue: 0x0006)
    public static let alreadyRegistered = ErrorCode(rawValue: 0x0007)
    public static let unsupportedVersion = ErrorCode(rawValue: 0x0008)
    public static let timedOut = ErrorCode(rawValue: 0x0009)
    // 0x01xx authentication and registration
    public static let wrongPasscode = ErrorCode(rawValue: 0x0101)
    public static let tooManyAttempts = ErrorCode(rawValue: 0x0102)
    public static let roomFull = ErrorCode(rawValue: 0x0103)
    public static let roleUnavailable = ErrorCode(rawValue: 0x0104)
    public static let invalidName = ErrorCode(rawValue: 0x0105)
    public static let kicked = ErrorCode(rawValue: 0x0106)
    public static let replaced = ErrorCode(rawValue: 0x0107)
    // 0x02xx the floor
    public static let noFloor = ErrorCode(rawValue: 0x0201)
    public static let floorTaken = ErrorCode(rawValue: 0x0202)
    public static let moderatorOnly = ErrorCode(rawValue: 0x0203)
    public static let doNotDisturb = ErrorCode(rawValue: 0x0204)
    public static let noSuchDevice = ErrorCode(rawValue: 0x0205)
    public static let notQueued = ErrorCode(rawValue: 0x0206)
    public static let floorFree = ErrorCode(rawValue: 0x0207)
    public static let notHandedOver = ErrorCode(rawValue: 0x0208)
    public static let handedOver = ErrorCode(rawValue: 0x0209)
    public static let invalidTarget = ErrorCode(rawValue: 0x020A)
    // 0x03xx content and the screen
    public static let unknownContent = ErrorCode(rawValue: 0x0301)
    public static let notYourContent = ErrorCode(rawValue: 0x0302)
    public static let pageOutOfRange = ErrorCode(rawValue: 0x0303)
    public static let nothingOnScreen = ErrorCode(rawValue: 0x0304)
    public static let unknownSignal = ErrorCode(rawValue: 0x0305)
    public static let wrongKind = ErrorCode(rawValue: 0x0306)
    public static let unreadableContent = ErrorCode(rawValue: 0x0307)
    // 0x04xx uploads
    public static let fileTooLarge = ErrorCode(rawValue: 0x0401)
    public static let quotaFull = ErrorCode(rawValue: 0x0402)
    public static let hashMismatch = ErrorCode(rawValue: 0x0403)
    public static let noUpload = ErrorCode(rawValue: 0x0404)
    public static let wrongOffset = ErrorCode(rawValue: 0x0405)
    public static let unsupportedFileType = ErrorCode(rawValue: 0x0406)
    public static let uploadIncomplete = ErrorCode(rawValue: 0x0407)
    public static let beyondDeclaredSize = ErrorCode(rawValue: 0x0408)
    public static let invalidFileName = ErrorCode(rawValue: 0x0409)
    // 0x05xx clip playback
    public static let clipsNotSupported = ErrorCode(rawValue: 0x0501)
    public static let noClip = ErrorCode(rawValue: 0x0502)
    public static let seekOutOfRange = ErrorCode(rawValue: 0x0503)
    // 0x06xx the server
    public static let internalError = ErrorCode(rawValue: 0x0601)
    public static let screenshotUnavailable = ErrorCode(rawValue: 0x0602)
    public static let shuttingDown = ErrorCode(rawValue: 0x0603)
    public static let storageFailed = ErrorCode(rawValue: 0x0604)
    public static let tooManyConnections = ErrorCode(rawValue: 0x0605)

    private static let names: [UInt16: String] = [
        0x0001: "malformedFrame",
        0x0002: "frameTooLarge",
        0x0003: "malformedBody",
        0x0004: "unknownCommand",
        0x0005: "wrongDeviceID",
        0x0006: "notRegistered",
        0x0007: "alreadyRegistered",
        0x0008: "unsupportedVersion",
        0x0009: "timedOut",
        0x0101: "wrongPasscode",
        0x0102: "tooManyAttempts",
        0x0103: "roomFull",
        0x0104: "roleUnavailable",
        0x0105: "invalidName",
        0x0106: "kicked",
        0x0107: "replaced",
        0x0201: "noFloor",
        0x0202: "floorTaken",
        0x0203: "moderatorOnly",
        0x0204: "doNotDisturb",
        0x0205: "noSuchDevice",
        0x0206: "notQueued",
        0x0207: "floorFree",
        0x0208: "notHandedOver",
        0x0209: "handedOver",
        0x020A: "invalidTarget",
        0x0301: "unknownContent",
        0x0302: "notYourContent",
        0x0303: "pageOutOfRange",
        0x0304: "nothingOnScreen",
        0x0305: "unknownSignal",
        0x0306: "wrongKind",
        0x0307: "unreadableContent",
        0x0401: "fileTooLarge",
        0x0402: "quotaFull",
        0x0403: "hashMismatch",
        0x0404: "noUpload",
        0x0405: "wrongOffset",
        0x0406: "unsupportedFileType",
        0x0407: "uploadIncomplete",
        0x0408: "beyondDeclaredSize",
        0x0409: "invalidFileName",
        0x0501: "clipsNotSupported",
        0x0502: "noClip",
        0x0503: "seekOutOfRange",
        0x0601: "internalError",
        0x0602: "screenshotUnavailable",
        0x0603: "shuttingDown",
        0x0604: "storageFailed",
        0x0605: "tooManyConnections",
    ]
    /// The code's name as used in docs/protocol.md ("wrongPasscode"); "unknown" for codes this version lacks.
    public var name: String { Self.names[rawValue] ?? "unknown" }

    /// Codes after which the server closes the connection.
    public static let fatalCodes: Set<ErrorCode> = [
        .malformedFrame, .frameTooLarge, .malformedBody, .unsupportedVersion, .timedOut,
        .kicked, .replaced, .shuttingDown, .tooManyConnections,
    ]
    public var closesConnection: Bool { Self.fatalCodes.contains(self) }

    /// Every code this version defines, for documentation and tests.
    public static let all: [ErrorCode] = [
        .malformedFrame, .frameTooLarge, .malformedBody, .unknownCommand, .wrongDeviceID, .notRegistered,
        .alreadyRegistered, .unsupportedVersion, .timedOut,
        .wrongPasscode, .tooManyAttempts, .roomFull, .roleUnavailable, .invalidName, .kicked, .replaced,
        .noFloor, .floorTaken, .moderatorOnly, .doNotDisturb, .noSuchDevice, .notQueued, .floorFree,
        .notHandedOver, .handedOver, .invalidTarget,
        .unknownContent, .notYourContent, .pageOutOfRange, .nothingOnScreen, .unknownSignal, .wrongKind,
        .unreadableContent,
        .fileTooLarge, .quotaFull, .hashMismatch, .noUpload, .wrongOffset, .unsupportedFileType,
        .uploadIncomplete, .beyondDeclaredSize, .invalidFileName,
        .clipsNotSupported, .noClip, .seekOutOfRange,
        .internalError, .screenshotUnavailable, .shuttingDown, .storageFailed, .tooManyConnections,
    ]
}

/// An error as it travels on the wire (body of 0x03, 0x0E and 0x14): a code, one
/// machine-readable number whose meaning depends on the code, and an English sentence
/// a presenter understands. Also the typed error every API in this module throws.
public struct LecternError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    public var code: ErrorCode
    /// Code-specific number (retry-after in ms, a limit in bytes, a device id, ...); 0 if none.
    public var detail: UInt64
    public var message: String
    /// True if the server closes the connection after sending this error.
    public var closesConnection: Bool

    public init(_ code: ErrorCode, detail: UInt64 = 0, message: String, closesConnection: Bool? = nil) {
        self.code = code
        self.detail = detail
        self.message = message
        self.closesConnection = closesConnection ?? code.closesConnection
    }

    public var description: String { "\(code) \(message)" }
}

/// Sizes for people: decimal units (1 MB = 1,000,000 bytes), at most one decimal.
public func humanBytes(_ n: UInt64) -> String {
    let units: [(UInt64, String)] = [(1_000_000_000_000, "TB"), (1_000_000_000, "GB"), (1_000_000, "MB"), (1_000, "kB")]
    for (size, name) in units where n >= size {
        let tenths = (n * 10 + size / 2) / size   // rounded to a tenth
        return tenths % 10 == 0 ? "\(tenths / 10) \(name)" : "\(tenths / 10).\(tenths % 10) \(name)"
    }
    return n == 1 ? "1 byte" : "\(n) bytes"
}

private func hex2(_ b: UInt8) -> String { "0x" + hexString([b]) }

/// The errors with their standard English messages. Use these rather than building
/// `LecternError` by hand so that every client sees the same sentences.
extension LecternError {
    // framing and session
    public static func malformedFrame(length: UInt32) -> LecternError {
        LecternError(.malformedFrame, detail: UInt64(length), message: "Malformed message: a length of \(length) bytes is shorter than the 8-byte header.")
    }
    public static func frameTooLarge(length: UInt32, limit: UInt32 = ProtocolLimits.maxFrameLength) -> LecternError {
        LecternError(.frameTooLarge, detail: UInt64(length), message: "A message of \(length) bytes is larger than the \(limit)-byte limit.")
    }
    public static func malformedBody(command: UInt8, reason: String) -> LecternError {
        LecternError(.malformedBody, detail: UInt64(command), message: "Malformed message \(hex2(command)): \(reason).")
    }
    public static func unknownCommand(_ command: UInt8) -> LecternError {
        LecternError(.unknownCommand, detail: UInt64(command), message: "Unknown command \(hex2(command)).")
    }
    public static func wrongDeviceID(sent: UInt8, expected: UInt8) -> LecternError {
        LecternError(.wrongDeviceID, detail: UInt64(sent), message: "The message says it is from device \(sent), but this connection is device \(expected).")
    }
    public static let notRegistered = LecternError(.notRegistered, message: "Connect with the passcode first.")
    public static let alreadyRegistered = LecternError(.alreadyRegistered, message: "This connection is already registered.")
    public static func unsupportedVersion(client: UInt16, server: UInt16 = lecternProtocolVersion) -> LecternError {
        LecternError(.unsupportedVersion, detail: UInt64(client), message: "This app speaks protocol version \(client); the appliance speaks version \(server). Update the app.")
    }
    public static func timedOut(seconds: Double) -> LecternError {
        LecternError(.timedOut, detail: UInt64(seconds * 1000), message: "Nothing heard for \(formatSeconds(seconds)) — connection closed.")
    }

    // authentication and registration
    public static let wrongPasscode = LecternError(.wrongPasscode, message: "Wrong passcode.")
    public static func tooManyAttempts(retryAfter seconds: Double) -> LecternError {
        let s = max(1, Int(seconds.rounded(.up)))
        return LecternError(.tooManyAttempts, detail: UInt64(max(0, seconds) * 1000), message: "Too many attempts — try again in \(s) s.")
    }
    public static func roomFull(capacity: Int = 254) -> LecternError {
        LecternError(.roomFull, detail: UInt64(capacity), message: "The room is full (\(capacity) devices).")
    }
    public static func roleUnavailable(_ role: Role) -> LecternError {
        LecternError(.roleUnavailable, detail: UInt64(role.rawValue),
                     message: role == .moderator ? "This room has no moderator passcode set." : "This room doesn't accept presenters.")
    }
    public static let invalidName = LecternError(.invalidName, message: "A device name must be 1 to 64 bytes of text without control characters.")
    public static let kicked = LecternError(.kicked, message: "The moderator removed you from the room.")
    public static let replaced = LecternError(.replaced, message: "This device connected again on another connection.")

    // the floor
    public static let noFloor = LecternError(.noFloor, message: "You don't have the floor — ask for it first.")
    public static func floorTaken(holder: DeviceID) -> LecternError {
        LecternError(.floorTaken, detail: UInt64(holder), message: "Someone else has the floor.")
    }
    public static let moderatorOnly = LecternError(.moderatorOnly, message: "Only the moderator can do that.")
    public static let doNotDisturb = LecternError(.doNotDisturb, message: "The moderator isn't taking floor requests right now.")
    public static func noSuchDevice(_ id: DeviceID) -> LecternError {
        LecternError(.noSuchDevice, detail: UInt64(id), message: "There is no device \(id) in the room.")
    }
    public static func notQueued(_ id: DeviceID) -> LecternError {
        LecternError(.notQueued, detail: UInt64(id), message: "Device \(id) hasn't asked for the floor.")
    }
    public static let floorFree = LecternError(.floorFree, message: "Nobody has the floor.")
    public static let notHandedOver = LecternError(.notHandedOver, message: "The floor isn't handed over to anyone.")
    public static func handedOver(to delegate: DeviceID) -> LecternError {
        LecternError(.handedOver, detail: UInt64(delegate), message: "You handed the floor to device \(delegate) — take it back first.")
    }
    public static func invalidTarget(_ id: DeviceID, _ why: String) -> LecternError {
        LecternError(.invalidTarget, detail: UInt64(id), message: why)
    }

    // content and screen
    public static let unknownContent = LecternError(.unknownContent, message: "There's no upload with that id — upload the file first.")
    public static let notYourContent = LecternError(.notYourContent, message: "Only the person who uploaded it or the moderator can show it.")
    public static func pageOutOfRange(page: UInt32, pageCount: UInt32) -> LecternError {
        LecternError(.pageOutOfRange, detail: UInt64(pageCount),
                     message: "There's no page \(page) — the document has \(pageCount) page\(pageCount == 1 ? "" : "s").")
    }
    public static let nothingOnScreen = LecternError(.nothingOnScreen, message: "Nothing is on screen.")
    public static func unknownSignal(_ signal: UInt8) -> LecternError {
        LecternError(.unknownSignal, detail: UInt64(signal), message: "Unknown control signal \(hex2(signal)).")
    }
    public static func wrongKind(is kind: ContentKind) -> LecternError {
        LecternError(.wrongKind, detail: UInt64(kind.rawValue),
                     message: kind == .clip ? "That is a clip — use play." : "That is a PDF — use present.")
    }
    public static let unreadableContent = LecternError(.unreadableContent, message: "The file can't be opened — is it damaged?")

    // uploads
    public static func fileTooLarge(limit: UInt64) -> LecternError {
        LecternError(.fileTooLarge, detail: limit, message: "The file is larger than the \(humanBytes(limit)) limit.")
    }
    public static func quotaFull(quota: UInt64) -> LecternError {
        LecternError(.quotaFull, detail: quota, message: "The appliance's storage is full (quota \(humanBytes(quota))).")
    }
    public static let hashMismatch = LecternError(.hashMismatch, message: "The file arrived damaged (SHA-256 mismatch) — upload it again.")
    public static let noUpload = LecternError(.noUpload, message: "No upload of that file is in progress — send upload-begin first.")
    public static func wrongOffset(expected: UInt64) -> LecternError {
        LecternError(.wrongOffset, detail: expected, message: "Upload chunk at the wrong position — expected byte \(expected).")
    }
    public static let unsupportedFileType = LecternError(.unsupportedFileType, message: "Only PDF files and H.264 clips (MP4) can be uploaded.")
    public static func uploadIncomplete(stored: UInt64, size: UInt64) -> LecternError {
        LecternError(.uploadIncomplete, detail: stored, message: "The upload isn't complete (\(stored) of \(size) bytes).")
    }
    public static func beyondDeclaredSize(size: UInt64) -> LecternError {
        LecternError(.beyondDeclaredSize, detail: size, message: "More data than the announced size (\(size) bytes).")
    }
    public static let invalidFileName = LecternError(.invalidFileName, message: "A file name must be 1 to 255 bytes of text without control characters.")

    // playback
    public static let clipsNotSupported = LecternError(.clipsNotSupported, message: "Clips are not supported yet.")
    public static let noClip = LecternError(.noClip, message: "No clip is on screen.")
    public static func seekOutOfRange(durationMs: UInt32) -> LecternError {
        LecternError(.seekOutOfRange, detail: UInt64(durationMs), message: "The clip is only \(formatSeconds(Double(durationMs) / 1000)) long.")
    }

    // server
    public static let internalError = LecternError(.internalError, message: "Something went wrong on the appliance.")
    public static let screenshotUnavailable = LecternError(.screenshotUnavailable, message: "The screen can't be captured right now.")
    public static let shuttingDown = LecternError(.shuttingDown, message: "The appliance is shutting down.")
    public static let storageFailed = LecternError(.storageFailed, message: "The appliance couldn't store the file.")
    public static let tooManyConnections = LecternError(.tooManyConnections, message: "Too many connections — try again shortly.")
}

func formatSeconds(_ s: Double) -> String {
    if s == s.rounded() { return "\(Int(s)) s" }
    return "\((s * 10).rounded() / 10) s"
}
