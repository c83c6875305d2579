import LecternModel

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

    /// The error with its code's standard message (from the table in `ErrorCode`).
    init(standard code: ErrorCode) {
        guard let message = code.defaultMessage else { preconditionFailure("error \(code.name) has no standard message") }
        self.init(code, message: message)
    }
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
    public static let notRegistered = LecternError(standard: .notRegistered)
    public static let alreadyRegistered = LecternError(standard: .alreadyRegistered)
    public static func unsupportedVersion(client: UInt16, server: UInt16 = lecternProtocolVersion) -> LecternError {
        LecternError(.unsupportedVersion, detail: UInt64(client), message: "This app speaks protocol version \(client); the appliance speaks version \(server). Update the app.")
    }
    public static func timedOut(seconds: Double) -> LecternError {
        LecternError(.timedOut, detail: UInt64(seconds * 1000), message: "Nothing heard for \(formatSeconds(seconds)) — connection closed.")
    }

    // authentication and registration
    public static let wrongPasscode = LecternError(standard: .wrongPasscode)
    public static func tooManyAttempts(retryAfter seconds: Double) -> LecternError {
        let s = max(1, Int(seconds.rounded(.up)))
        return LecternError(.tooManyAttempts, detail: UInt64(max(0, seconds) * 1000), message: "Too many attempts — try again in \(s) s.")
    }
    public static func roomFull(capacity: Int = 254) -> LecternError {
        LecternError(.roomFull, detail: UInt64(capacity), message: "The room is full (\(capacity) devices).")
    }
    public static func roleUnavailable(_ role: Role) -> LecternError {
        LecternError(
            .roleUnavailable, detail: UInt64(role.rawValue),
            message: role == .moderator
                ? "This room has no moderator passcode set." : role == .viewer ? "This room doesn't take an audience." : "This room doesn't accept presenters.")
    }
    public static let invalidName = LecternError(standard: .invalidName)
    public static let kicked = LecternError(standard: .kicked)

    /// A presenter the moderator removed, joining again too soon (config `remove_cooldown`).
    public static func removedCoolingDown(retryAfter seconds: Double) -> LecternError {
        let s = max(1, Int(seconds.rounded(.up)))
        return LecternError(
            .removedCoolingDown, detail: UInt64(max(0, seconds) * 1000),
            message: "The moderator removed you from the room — you can join again in \(s) s.")
    }
    public static let replaced = LecternError(standard: .replaced)

    /// To a device registering again with the token of a floor holder whose grace period
    /// ran out while it was away (§9.6): sent after register-ok, tag 0; nothing closes.
    public static func floorExpired(gracePeriod seconds: Double) -> LecternError {
        LecternError(
            .floorExpired, detail: UInt64(max(0, seconds) * 1000),
            message: "You were away longer than \(formatSeconds(seconds)); the floor was released.")
    }

    /// To a device registering again with the token of a pane's driver whose grace period
    /// ran out while it was away (§9.6, §9.7): its pane was emptied; sent after register-ok,
    /// tag 0; nothing closes. Detail: the grace period in ms.
    public static func paneExpired(gracePeriod seconds: Double, pane: Int) -> LecternError {
        LecternError(
            .paneExpired, detail: UInt64(max(0, seconds) * 1000),
            message: "You were away longer than \(formatSeconds(seconds)); your pane of the wall (pane \(pane)) was cleared.")
    }

    // the floor
    public static let noFloor = LecternError(standard: .noFloor)
    public static func floorTaken(holder: DeviceID) -> LecternError {
        LecternError(.floorTaken, detail: UInt64(holder), message: "Someone else has the floor.")
    }
    public static let moderatorOnly = LecternError(standard: .moderatorOnly)
    public static let doNotDisturb = LecternError(standard: .doNotDisturb)
    public static func noSuchDevice(_ id: DeviceID) -> LecternError {
        LecternError(.noSuchDevice, detail: UInt64(id), message: "There is no device \(id) in the room.")
    }
    public static func notQueued(_ id: DeviceID) -> LecternError {
        LecternError(.notQueued, detail: UInt64(id), message: "Device \(id) hasn't asked for the floor.")
    }
    public static let floorFree = LecternError(standard: .floorFree)
    public static let notHandedOver = LecternError(standard: .notHandedOver)
    public static func handedOver(to delegate: DeviceID) -> LecternError {
        LecternError(.handedOver, detail: UInt64(delegate), message: "You handed the floor to device \(delegate) — take it back first.")
    }
    public static func invalidTarget(_ id: DeviceID, _ why: String) -> LecternError {
        invalidTarget(detail: UInt64(id), why)
    }
    /// The target as sent (a hand-over's u32 parameter, 256 and above included: §15).
    public static func invalidTarget(detail: UInt64, _ why: String) -> LecternError {
        LecternError(.invalidTarget, detail: detail, message: why)
    }

    // content and screen
    public static let unknownContent = LecternError(standard: .unknownContent)
    public static let notYourContent = LecternError(standard: .notYourContent)
    public static func pageOutOfRange(page: UInt32, pageCount: UInt32) -> LecternError {
        LecternError(
            .pageOutOfRange, detail: UInt64(pageCount),
            message: "There's no page \(page) — the document has \(pageCount) page\(pageCount == 1 ? "" : "s").")
    }
    public static let nothingOnScreen = LecternError(standard: .nothingOnScreen)
    public static func unknownSignal(_ signal: UInt8) -> LecternError {
        LecternError(.unknownSignal, detail: UInt64(signal), message: "Unknown control signal \(hex2(signal)).")
    }
    public static func wrongKind(is kind: ContentKind) -> LecternError {
        LecternError(
            .wrongKind, detail: UInt64(kind.rawValue),
            message: kind == .clip ? "That is a clip — use play." : "That is a PDF — use present.")
    }
    public static let unreadableContent = LecternError(standard: .unreadableContent)

    // uploads
    /// `text`: the limit as the admin wrote it ("100 MB" for `max_upload_mb = 100`, §30.10).
    public static func fileTooLarge(limit: UInt64, text: String? = nil) -> LecternError {
        LecternError(.fileTooLarge, detail: limit, message: "The file is larger than the \(text ?? humanBytes(limit)) limit.")
    }
    public static func quotaFull(quota: UInt64) -> LecternError {
        LecternError(.quotaFull, detail: quota, message: "The appliance's storage is full (quota \(humanBytes(quota))).")
    }
    public static let hashMismatch = LecternError(standard: .hashMismatch)
    public static let noUpload = LecternError(standard: .noUpload)
    /// `noUpload` to the connection whose upload another connection's upload-begin took over.
    public static let uploadTakenOver = LecternError(
        .noUpload, message: "Another connection took this upload over — send upload-begin again to resume it.")
    public static func wrongOffset(expected: UInt64) -> LecternError {
        LecternError(.wrongOffset, detail: expected, message: "Upload chunk at the wrong position — expected byte \(expected).")
    }
    public static let unsupportedFileType = LecternError(standard: .unsupportedFileType)
    public static func uploadIncomplete(stored: UInt64, size: UInt64) -> LecternError {
        LecternError(.uploadIncomplete, detail: stored, message: "The upload isn't complete (\(stored) of \(size) bytes).")
    }
    public static func beyondDeclaredSize(size: UInt64) -> LecternError {
        LecternError(.beyondDeclaredSize, detail: size, message: "More data than the announced size (\(size) bytes).")
    }
    public static let invalidFileName = LecternError(standard: .invalidFileName)

    // playback
    public static let clipsNotSupported = LecternError(standard: .clipsNotSupported)
    public static let noClip = LecternError(standard: .noClip)
    public static func seekOutOfRange(durationMs: UInt32) -> LecternError {
        LecternError(.seekOutOfRange, detail: UInt64(durationMs), message: "The clip is only \(formatSeconds(Double(durationMs) / 1000)) long.")
    }

    // sound
    public static func volumeOutOfRange(_ level: UInt8) -> LecternError {
        LecternError(.volumeOutOfRange, detail: UInt64(level), message: "The volume goes from 0 to 100, not \(level).")
    }

    // the meeting record (§26)
    public static let recordOff = LecternError(standard: .recordOff)
    public static let recordNotAllowed = LecternError(standard: .recordNotAllowed)
    public static let recordEmpty = LecternError(standard: .recordEmpty)
    public static let recordBusy = LecternError(standard: .recordBusy)
    public static func recordFailed(_ why: String) -> LecternError {
        LecternError(.recordFailed, message: "The meeting record could not be made: \(why)")
    }

    // server
    public static let internalError = LecternError(standard: .internalError)
    public static let screenshotUnavailable = LecternError(standard: .screenshotUnavailable)
    public static let shuttingDown = LecternError(standard: .shuttingDown)
    public static let storageFailed = LecternError(standard: .storageFailed)
    public static let tooManyConnections = LecternError(standard: .tooManyConnections)
    public static let tlsRequired = LecternError(standard: .tlsRequired)
    public static let meetingEnded = LecternError(standard: .meetingEnded)
    public static let busy = LecternError(standard: .busy)

    // the presenter console
    public static let notesPrivate = LecternError(standard: .notesPrivate)
    public static func badNotesFile(_ why: String) -> LecternError {
        LecternError(.badNotesFile, message: "That notes file can't be read: \(why)")
    }
    public static func unknownLabel(_ label: String) -> LecternError {
        LecternError(.unknownLabel, message: "No slide is labelled “\(label.prefix(64))”.")
    }
    public static func notesTooLarge(limit: Int) -> LecternError {
        LecternError(.notesTooLarge, detail: UInt64(limit), message: "The notes are longer than the \(humanBytes(UInt64(limit))) limit.")
    }
    public static func badTimer(_ why: String) -> LecternError { LecternError(.badTimer, message: why) }

    // the audience
    public static func viewerNotAllowed(_ command: UInt8) -> LecternError {
        LecternError(
            .viewerNotAllowed, detail: UInt64(command),
            message: "You joined as a viewer: you can follow, answer polls and ask questions, but not present, turn pages or take the floor.")
    }
    public static func audienceFull(_ limit: Int) -> LecternError {
        LecternError(.audienceFull, detail: UInt64(limit), message: "The audience is full (\(limit) viewers).")
    }
    public static let noSuchPoll = LecternError(standard: .noSuchPoll)
    public static let pollClosed = LecternError(standard: .pollClosed)
    public static func badPoll(_ why: String) -> LecternError { LecternError(.badPoll, message: why) }
    public static func badAnswer(_ why: String) -> LecternError { LecternError(.badAnswer, message: why) }
    public static let noSuchQuestion = LecternError(standard: .noSuchQuestion)
    public static func tooLong(_ what: String, limit: Int) -> LecternError {
        LecternError(.tooLong, detail: UInt64(limit), message: "The \(what) is longer than \(limit) bytes.")
    }
    public static func tooMany(_ what: String, limit: Int) -> LecternError {
        LecternError(.tooMany, detail: UInt64(limit), message: "There can be at most \(limit) \(what).")
    }
    public static func slowDown(retryAfter seconds: Double) -> LecternError {
        LecternError(
            .slowDown, detail: UInt64(max(0, seconds) * 1000),
            message: "One question at a time — try again in \(max(1, Int(seconds.rounded(.up)))) s.")
    }
    public static let audienceOnly = LecternError(standard: .audienceOnly)
    // pointer and ink
    public static let notAllowedToDraw = LecternError(standard: .notAllowedToDraw)
    public static func tooManyDrawers(limit: Int) -> LecternError {
        LecternError(.tooManyDrawers, detail: UInt64(limit), message: "\(limit) people are drawing already — wait until one of them is done.")
    }
    public static let nothingToInk = LecternError(standard: .nothingToInk)
    public static func strokeTooLong(limit: Int) -> LecternError {
        LecternError(.strokeTooLong, detail: UInt64(limit), message: "A stroke has at most \(limit) points — end it and start a new one.")
    }
    public static func pageInkFull(strokes: Int, points: Int) -> LecternError {
        LecternError(
            .pageInkFull, detail: UInt64(strokes),
            message: "This page is full of ink (at most \(strokes) strokes and \(points) points) — erase or clear some first.")
    }
    public static func roomInkFull(points: Int) -> LecternError {
        LecternError(.roomInkFull, detail: UInt64(points), message: "The room holds at most \(points) points of ink — clear some pages first.")
    }
    public static let noStroke = LecternError(standard: .noStroke)
    public static let nothingToUndo = LecternError(standard: .nothingToUndo)
    public static let leadOnly = LecternError(standard: .leadOnly)
    public static func tooManyWhiteboards(limit: Int) -> LecternError {
        LecternError(.tooManyWhiteboards, detail: UInt64(limit), message: "This meeting has \(limit) whiteboards of that colour already — go back to one of them.")
    }
    // transitions and the output (§21)
    public static let transitionOutOfRange = LecternError(standard: .transitionOutOfRange)
}

func formatSeconds(_ s: Double) -> String {
    if s == s.rounded() { return "\(Int(s)) s" }
    return "\((s * 10).rounded() / 10) s"
}
