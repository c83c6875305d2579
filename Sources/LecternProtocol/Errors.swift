import LecternCore

/// A u16 error code. A struct rather than an enum so that a client can carry codes a
/// newer server invents; the known ones are the static members, grouped by area in the
/// high byte (docs/protocol.md, "Error codes").
public struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public var description: String { "0x" + hexString([UInt8(rawValue >> 8), UInt8(rawValue & 0xFF)]).uppercased() }

    /// The codes this version knows. A code is defined once, by its row in `definition`:
    /// its number, whether the server closes the connection after it, and its standard
    /// message where it has one (parameterised messages are the functions on `LecternError`).
    /// Its name is the case's name. Everything else — the static members below, `all`,
    /// `name`, `fatalCodes`, `defaultMessage` — reads this table. The web remote's copy
    /// (Web/protocol.js) is checked against it by Tests/LecternWebTests/ProtocolTableDriftTests.swift.
    enum Known: CaseIterable {
        case malformedFrame, frameTooLarge, malformedBody, unknownCommand, wrongDeviceID, notRegistered, alreadyRegistered, unsupportedVersion, timedOut
        case wrongPasscode, tooManyAttempts, roomFull, roleUnavailable, invalidName, kicked, replaced
        case noFloor, floorTaken, moderatorOnly, doNotDisturb, noSuchDevice, notQueued, floorFree, notHandedOver, handedOver, invalidTarget
        case unknownContent, notYourContent, pageOutOfRange, nothingOnScreen, unknownSignal, wrongKind, unreadableContent
        case fileTooLarge, quotaFull, hashMismatch, noUpload, wrongOffset, unsupportedFileType, uploadIncomplete, beyondDeclaredSize, invalidFileName
        case clipsNotSupported, noClip, seekOutOfRange
        case internalError, screenshotUnavailable, shuttingDown, storageFailed, tooManyConnections, busy
        case notesPrivate, badNotesFile, unknownLabel, notesTooLarge, badTimer
        case viewerNotAllowed, audienceFull, noSuchPoll, pollClosed, badPoll, badAnswer, noSuchQuestion, tooLong, tooMany, slowDown, audienceOnly
        case notAllowedToDraw, tooManyDrawers, nothingToInk, strokeTooLong, pageInkFull, roomInkFull, noStroke, nothingToUndo, leadOnly, tooManyWhiteboards
        case transitionOutOfRange
        case removedCoolingDown
        case volumeOutOfRange
    }

    struct Definition: Sendable {
        let code: UInt16
        let closes: Bool
        let message: String?
        init(_ code: UInt16, closes: Bool = false, message: String? = nil) {
            self.code = code
            self.closes = closes
            self.message = message
        }
    }

    static func definition(_ known: Known) -> Definition {
        switch known {
        // 0x00xx framing and session
        case .malformedFrame: Definition(0x0001, closes: true)
        case .frameTooLarge: Definition(0x0002, closes: true)
        case .malformedBody: Definition(0x0003, closes: true)
        case .unknownCommand: Definition(0x0004)
        case .wrongDeviceID: Definition(0x0005)
        case .notRegistered: Definition(0x0006, message: "Connect with the passcode first.")
        case .alreadyRegistered: Definition(0x0007, message: "This connection is already registered.")
        case .unsupportedVersion: Definition(0x0008, closes: true)
        case .timedOut: Definition(0x0009, closes: true)
        // 0x01xx authentication and registration
        case .wrongPasscode: Definition(0x0101, message: "Wrong passcode.")
        case .tooManyAttempts: Definition(0x0102)
        case .roomFull: Definition(0x0103)
        case .roleUnavailable: Definition(0x0104)
        case .invalidName: Definition(0x0105, message: "A device name must be 1 to 64 bytes of text without control characters.")
        case .kicked: Definition(0x0106, closes: true, message: "The moderator removed you from the room.")
        case .replaced: Definition(0x0107, closes: true, message: "This device connected again on another connection.")
        // 0x02xx the floor
        case .noFloor: Definition(0x0201, message: "You don't have the floor — ask for it first.")
        case .floorTaken: Definition(0x0202)
        case .moderatorOnly: Definition(0x0203, message: "Only the moderator can do that.")
        case .doNotDisturb: Definition(0x0204, message: "The moderator isn't taking floor requests right now.")
        case .noSuchDevice: Definition(0x0205)
        case .notQueued: Definition(0x0206)
        case .floorFree: Definition(0x0207, message: "Nobody has the floor.")
        case .notHandedOver: Definition(0x0208, message: "The floor isn't handed over to anyone.")
        case .handedOver: Definition(0x0209)
        case .invalidTarget: Definition(0x020A)
        // 0x03xx content and the screen
        case .unknownContent: Definition(0x0301, message: "There's no upload with that id — upload the file first.")
        case .notYourContent: Definition(0x0302, message: "Only the person who uploaded it or the moderator can show it.")
        case .pageOutOfRange: Definition(0x0303)
        case .nothingOnScreen: Definition(0x0304, message: "Nothing is on screen.")
        case .unknownSignal: Definition(0x0305)
        case .wrongKind: Definition(0x0306)
        case .unreadableContent: Definition(0x0307, message: "The file can't be opened — is it damaged?")
        // 0x04xx uploads
        case .fileTooLarge: Definition(0x0401)
        case .quotaFull: Definition(0x0402)
        case .hashMismatch: Definition(0x0403, message: "The file arrived damaged (SHA-256 mismatch) — upload it again.")
        case .noUpload: Definition(0x0404, message: "No upload of that file is in progress — send upload-begin first.")
        case .wrongOffset: Definition(0x0405)
        case .unsupportedFileType: Definition(0x0406, message: "Only PDF files and video clips (H.264; MP4, MOV, Matroska, MPEG-TS) can be uploaded.")
        case .uploadIncomplete: Definition(0x0407)
        case .beyondDeclaredSize: Definition(0x0408)
        case .invalidFileName: Definition(0x0409, message: "A file name must be 1 to 255 bytes of text without control characters.")
        // 0x05xx clip playback
        case .clipsNotSupported: Definition(0x0501, message: "Clips are not supported yet.")
        case .noClip: Definition(0x0502, message: "No clip is on screen.")
        case .seekOutOfRange: Definition(0x0503)
        // 0x0Dxx sound
        case .volumeOutOfRange: Definition(0x0D00)
        // 0x06xx the server
        case .internalError: Definition(0x0601, message: "Something went wrong on the appliance.")
        case .screenshotUnavailable: Definition(0x0602, message: "The screen can't be captured right now.")
        case .shuttingDown: Definition(0x0603, closes: true, message: "The appliance is shutting down.")
        case .storageFailed: Definition(0x0604, message: "The appliance couldn't store the file.")
        case .tooManyConnections: Definition(0x0605, closes: true, message: "Too many connections — try again shortly.")
        case .busy: Definition(0x0606, message: "Too much at once on this connection — wait for the earlier requests to finish.")
        // 0x07xx the presenter console
        case .notesPrivate: Definition(0x0701, message: "Speaker notes are only for whoever has the floor and the moderator.")
        case .badNotesFile: Definition(0x0702)
        case .unknownLabel: Definition(0x0703)
        case .notesTooLarge: Definition(0x0704)
        case .badTimer: Definition(0x0705)
        // 0x09xx the audience
        case .viewerNotAllowed: Definition(0x0901)
        case .audienceFull: Definition(0x0902)
        case .noSuchPoll: Definition(0x0903, message: "There's no such poll.")
        case .pollClosed: Definition(0x0904, message: "This poll is closed — answers are no longer taken.")
        case .badPoll: Definition(0x0905)
        case .badAnswer: Definition(0x0906)
        case .noSuchQuestion: Definition(0x0907, message: "There's no such question.")
        case .tooLong: Definition(0x0908)
        case .tooMany: Definition(0x0909)
        case .slowDown: Definition(0x090A)
        case .audienceOnly: Definition(0x090B, message: "Only the presenter with the floor or the moderator can do that.")
        // 0x08xx pointer and ink (§22)
        case .notAllowedToDraw: Definition(0x0801, message: "Ask the presenter or the moderator to let you draw.")
        case .tooManyDrawers: Definition(0x0802)
        case .nothingToInk: Definition(0x0803, message: "Ink goes on a page — show a PDF page or a whiteboard first.")
        case .strokeTooLong: Definition(0x0804)
        case .pageInkFull: Definition(0x0805)
        case .roomInkFull: Definition(0x0806)
        case .noStroke: Definition(0x0807, message: "No stroke is in progress — send stroke-begin first.")
        case .nothingToUndo: Definition(0x0808, message: "You have no strokes on this page to undo.")
        case .leadOnly: Definition(0x0809, message: "Only the presenter with the floor or the moderator can do that.")
        case .tooManyWhiteboards: Definition(0x080A)
        // 0x0Axx transitions and the output (§21)
        case .transitionOutOfRange: Definition(0x0A01, message: "A cross-fade lasts 50 to 2000 ms (0 turns it off).")
        // 0x0Cxx the web remote's room rules
        case .removedCoolingDown: Definition(0x0C00)
        }
    }

    init(_ known: Known) { rawValue = Self.definition(known).code }

    // 0x00xx framing and session
    public static let malformedFrame = ErrorCode(.malformedFrame)
    public static let frameTooLarge = ErrorCode(.frameTooLarge)
    public static let malformedBody = ErrorCode(.malformedBody)
    public static let unknownCommand = ErrorCode(.unknownCommand)
    public static let wrongDeviceID = ErrorCode(.wrongDeviceID)
    public static let notRegistered = ErrorCode(.notRegistered)
    public static let alreadyRegistered = ErrorCode(.alreadyRegistered)
    public static let unsupportedVersion = ErrorCode(.unsupportedVersion)
    public static let timedOut = ErrorCode(.timedOut)
    // 0x01xx authentication and registration
    public static let wrongPasscode = ErrorCode(.wrongPasscode)
    public static let tooManyAttempts = ErrorCode(.tooManyAttempts)
    public static let roomFull = ErrorCode(.roomFull)
    public static let roleUnavailable = ErrorCode(.roleUnavailable)
    public static let invalidName = ErrorCode(.invalidName)
    public static let kicked = ErrorCode(.kicked)
    public static let replaced = ErrorCode(.replaced)
    // 0x02xx the floor
    public static let noFloor = ErrorCode(.noFloor)
    public static let floorTaken = ErrorCode(.floorTaken)
    public static let moderatorOnly = ErrorCode(.moderatorOnly)
    public static let doNotDisturb = ErrorCode(.doNotDisturb)
    public static let noSuchDevice = ErrorCode(.noSuchDevice)
    public static let notQueued = ErrorCode(.notQueued)
    public static let floorFree = ErrorCode(.floorFree)
    public static let notHandedOver = ErrorCode(.notHandedOver)
    public static let handedOver = ErrorCode(.handedOver)
    public static let invalidTarget = ErrorCode(.invalidTarget)
    // 0x03xx content and the screen
    public static let unknownContent = ErrorCode(.unknownContent)
    public static let notYourContent = ErrorCode(.notYourContent)
    public static let pageOutOfRange = ErrorCode(.pageOutOfRange)
    public static let nothingOnScreen = ErrorCode(.nothingOnScreen)
    public static let unknownSignal = ErrorCode(.unknownSignal)
    public static let wrongKind = ErrorCode(.wrongKind)
    public static let unreadableContent = ErrorCode(.unreadableContent)
    // 0x04xx uploads
    public static let fileTooLarge = ErrorCode(.fileTooLarge)
    public static let quotaFull = ErrorCode(.quotaFull)
    public static let hashMismatch = ErrorCode(.hashMismatch)
    public static let noUpload = ErrorCode(.noUpload)
    public static let wrongOffset = ErrorCode(.wrongOffset)
    public static let unsupportedFileType = ErrorCode(.unsupportedFileType)
    public static let uploadIncomplete = ErrorCode(.uploadIncomplete)
    public static let beyondDeclaredSize = ErrorCode(.beyondDeclaredSize)
    public static let invalidFileName = ErrorCode(.invalidFileName)
    // 0x05xx clip playback
    public static let clipsNotSupported = ErrorCode(.clipsNotSupported)
    public static let noClip = ErrorCode(.noClip)
    public static let seekOutOfRange = ErrorCode(.seekOutOfRange)
    // 0x0Dxx sound
    public static let volumeOutOfRange = ErrorCode(.volumeOutOfRange)
    // 0x06xx the server
    public static let internalError = ErrorCode(.internalError)
    public static let screenshotUnavailable = ErrorCode(.screenshotUnavailable)
    public static let shuttingDown = ErrorCode(.shuttingDown)
    public static let storageFailed = ErrorCode(.storageFailed)
    public static let tooManyConnections = ErrorCode(.tooManyConnections)
    public static let busy = ErrorCode(.busy)
    // 0x07xx the presenter console
    public static let notesPrivate = ErrorCode(.notesPrivate)
    public static let badNotesFile = ErrorCode(.badNotesFile)
    public static let unknownLabel = ErrorCode(.unknownLabel)
    public static let notesTooLarge = ErrorCode(.notesTooLarge)
    public static let badTimer = ErrorCode(.badTimer)
    // 0x09xx the audience
    public static let viewerNotAllowed = ErrorCode(.viewerNotAllowed)
    public static let audienceFull = ErrorCode(.audienceFull)
    public static let noSuchPoll = ErrorCode(.noSuchPoll)
    public static let pollClosed = ErrorCode(.pollClosed)
    public static let badPoll = ErrorCode(.badPoll)
    public static let badAnswer = ErrorCode(.badAnswer)
    public static let noSuchQuestion = ErrorCode(.noSuchQuestion)
    public static let tooLong = ErrorCode(.tooLong)
    public static let tooMany = ErrorCode(.tooMany)
    public static let slowDown = ErrorCode(.slowDown)
    public static let audienceOnly = ErrorCode(.audienceOnly)
    // 0x0Axx transitions and the output
    public static let transitionOutOfRange = ErrorCode(.transitionOutOfRange)
    public static let removedCoolingDown = ErrorCode(.removedCoolingDown)

    public static let notAllowedToDraw = ErrorCode(.notAllowedToDraw)
    public static let tooManyDrawers = ErrorCode(.tooManyDrawers)
    public static let nothingToInk = ErrorCode(.nothingToInk)
    public static let strokeTooLong = ErrorCode(.strokeTooLong)
    public static let pageInkFull = ErrorCode(.pageInkFull)
    public static let roomInkFull = ErrorCode(.roomInkFull)
    public static let noStroke = ErrorCode(.noStroke)
    public static let nothingToUndo = ErrorCode(.nothingToUndo)
    public static let leadOnly = ErrorCode(.leadOnly)
    public static let tooManyWhiteboards = ErrorCode(.tooManyWhiteboards)

    private struct Entry: Sendable {
        let name: String
        let definition: Definition
    }

    /// Code → name and row, from the table (a code in two rows stops here, in any test run).
    private static let entries: [UInt16: Entry] = {
        var entries: [UInt16: Entry] = [:]
        for k in Known.allCases {
            let d = definition(k)
            precondition(entries[d.code] == nil, "error code \(d.code) is in the table twice")
            entries[d.code] = Entry(name: String(describing: k), definition: d)
        }
        return entries
    }()

    /// The code's name as used in docs/protocol.md ("wrongPasscode"); "unknown" for codes this version lacks.
    public var name: String { Self.entries[rawValue]?.name ?? "unknown" }

    /// The code's standard message, for codes whose message takes no parameters; else nil.
    public var defaultMessage: String? { Self.entries[rawValue]?.definition.message }

    /// Codes after which the server closes the connection.
    public static let fatalCodes: Set<ErrorCode> = Set(all.filter { entries[$0.rawValue]!.definition.closes })
    public var closesConnection: Bool { Self.fatalCodes.contains(self) }

    /// Every code this version defines, in the table's order, for documentation and tests.
    public static let all: [ErrorCode] = Known.allCases.map(ErrorCode.init)
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
        LecternError(.invalidTarget, detail: UInt64(id), message: why)
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
    public static func fileTooLarge(limit: UInt64) -> LecternError {
        LecternError(.fileTooLarge, detail: limit, message: "The file is larger than the \(humanBytes(limit)) limit.")
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

    // server
    public static let internalError = LecternError(standard: .internalError)
    public static let screenshotUnavailable = LecternError(standard: .screenshotUnavailable)
    public static let shuttingDown = LecternError(standard: .shuttingDown)
    public static let storageFailed = LecternError(standard: .storageFailed)
    public static let tooManyConnections = LecternError(standard: .tooManyConnections)
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
