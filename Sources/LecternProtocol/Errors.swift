import LecternModel

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
    /// (Web/core/protocol.js) is checked against it by Tests/LecternWebTests/ProtocolTableDriftTests.swift.
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
        case recordOff, recordNotAllowed, recordEmpty, recordBusy, recordFailed
        case tlsRequired
        case noSuchPane, wallFull, wallModerated, paneCannotPlay
        case meetingEnded
        case floorExpired, paneExpired
        case shareUnsupported, noShare, shareBusy, shareDamaged, shareStalled, shareWithdrawn, shareReplaced, shareNoPicture, shareNotWaiting
        case stillConverting, conversionUnavailable
        case conversionFailed, conversionTimedOut, conversionTooLarge, conversionTooManyPages, conversionOutOfMemory, conversionQueueFull
        case conversionCancelled, notConverting
        case pageStillConverting
        case notAnImage, tooManyImages, imageTooLarge, imageOverBudget
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
        case .unsupportedFileType: Definition(0x0406, message: UploadFormats.refusal)
        case .uploadIncomplete: Definition(0x0407)
        case .beyondDeclaredSize: Definition(0x0408)
        case .invalidFileName: Definition(0x0409, message: "A file name must be 1 to 255 bytes of text without control characters.")
        case .stillConverting: Definition(0x040A)
        case .conversionUnavailable: Definition(0x040B)
        // 0x05xx clip playback
        case .clipsNotSupported: Definition(0x0501, message: "Clips are not supported yet.")
        case .noClip: Definition(0x0502, message: "No clip is on screen.")
        case .seekOutOfRange: Definition(0x0503)
        // 0x0Dxx sound
        case .volumeOutOfRange: Definition(0x0D00)
        // 0x0Bxx the meeting record (§26)
        case .recordOff: Definition(0x0B00, message: "This room keeps no meeting record (the admin set record = \"off\").")
        case .recordNotAllowed: Definition(0x0B01, message: "Only the moderator can download the meeting record here.")
        case .recordEmpty: Definition(0x0B02, message: "Nothing has been shown in this meeting yet: the record is empty.")
        case .recordBusy: Definition(0x0B03, message: "The meeting record is being made for someone already — try again in a moment.")
        case .recordFailed: Definition(0x0B04)
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
        // 0x0Fxx the wall's layout (§9.7)
        case .noSuchPane: Definition(0x0F01)
        case .wallFull: Definition(0x0F02, message: "Every pane of the wall is in use — ask the moderator to make room.")
        case .wallModerated: Definition(0x0F03, message: "In a moderated room the moderator arranges the wall — ask them to put you on it.")
        case .paneCannotPlay: Definition(0x0F04, message: "Clips play in the main pane of the wall — ask the moderator to put yours there.")
        // 0x10xx the meeting (§27)
        case .meetingEnded: Definition(0x1001, closes: true, message: "The meeting has ended: everything of it was cleared. Join again to start the next one.")
        // 0x0Exx transport security (§25.5)
        case .tlsRequired:
            Definition(
                0x0E01, closes: true,
                message: "This appliance takes encrypted (TLS) connections only: connect with TLS (the lectern CLI does; a browser: https://), or ask the admin to set allow_plain."
            )
        // 0x11xx a device coming back (§9.6)
        case .floorExpired: Definition(0x1101)
        case .paneExpired: Definition(0x1102)
        // 0x12xx live sharing (§29)
        case .shareUnsupported: Definition(0x1201)
        case .noShare: Definition(0x1202, message: "You aren't sharing — send share-begin first.")
        case .shareBusy: Definition(0x1203)
        case .shareDamaged: Definition(0x1204)
        case .shareStalled: Definition(0x1205)
        case .shareWithdrawn: Definition(0x1206, message: "The moderator ended your share.")
        case .shareReplaced: Definition(0x1207, message: "Your share left the wall: something else went up in its pane, or the pane is no longer yours.")
        case .shareNoPicture: Definition(0x1208, message: "That device isn't sharing a picture yet.")
        case .shareNotWaiting: Definition(0x1209, message: "That device has no share waiting for approval.")
        // 0x13xx converted files (§30)
        case .conversionFailed: Definition(0x1300)
        case .conversionTimedOut: Definition(0x1301)
        case .conversionTooLarge: Definition(0x1302)
        case .conversionTooManyPages: Definition(0x1303)
        case .conversionOutOfMemory: Definition(0x1304)
        case .conversionQueueFull: Definition(0x1305)
        case .conversionCancelled: Definition(0x1306)
        case .notConverting: Definition(0x1307, message: "That file isn't being converted.")
        case .pageStillConverting: Definition(0x1308)
        // 0x138x photos and images (§30.9)
        case .notAnImage: Definition(0x1380)
        case .tooManyImages: Definition(0x1381)
        case .imageTooLarge: Definition(0x1382)
        case .imageOverBudget: Definition(0x1383)
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
    // 0x0Bxx the meeting record
    public static let recordOff = ErrorCode(.recordOff)
    public static let recordNotAllowed = ErrorCode(.recordNotAllowed)
    public static let recordEmpty = ErrorCode(.recordEmpty)
    public static let recordBusy = ErrorCode(.recordBusy)
    public static let recordFailed = ErrorCode(.recordFailed)
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
    public static let tlsRequired = ErrorCode(.tlsRequired)
    // 0x0Fxx the wall's layout
    public static let noSuchPane = ErrorCode(.noSuchPane)
    public static let wallFull = ErrorCode(.wallFull)
    public static let wallModerated = ErrorCode(.wallModerated)
    public static let paneCannotPlay = ErrorCode(.paneCannotPlay)
    public static let meetingEnded = ErrorCode(.meetingEnded)
    // 0x11xx a device coming back
    public static let floorExpired = ErrorCode(.floorExpired)
    public static let paneExpired = ErrorCode(.paneExpired)
    // 0x12xx live sharing
    public static let shareUnsupported = ErrorCode(.shareUnsupported)
    public static let noShare = ErrorCode(.noShare)
    public static let shareBusy = ErrorCode(.shareBusy)
    public static let shareDamaged = ErrorCode(.shareDamaged)
    public static let shareStalled = ErrorCode(.shareStalled)
    public static let shareWithdrawn = ErrorCode(.shareWithdrawn)
    public static let shareReplaced = ErrorCode(.shareReplaced)
    public static let shareNoPicture = ErrorCode(.shareNoPicture)
    public static let shareNotWaiting = ErrorCode(.shareNotWaiting)
    // 0x040A–0x040C, 0x13xx converted files (§30)
    public static let stillConverting = ErrorCode(.stillConverting)
    public static let conversionUnavailable = ErrorCode(.conversionUnavailable)
    public static let conversionFailed = ErrorCode(.conversionFailed)
    public static let conversionTimedOut = ErrorCode(.conversionTimedOut)
    public static let conversionTooLarge = ErrorCode(.conversionTooLarge)
    public static let conversionTooManyPages = ErrorCode(.conversionTooManyPages)
    public static let conversionOutOfMemory = ErrorCode(.conversionOutOfMemory)
    public static let conversionQueueFull = ErrorCode(.conversionQueueFull)
    public static let conversionCancelled = ErrorCode(.conversionCancelled)
    public static let notConverting = ErrorCode(.notConverting)
    public static let pageStillConverting = ErrorCode(.pageStillConverting)
    // 0x138x photos and images (§30.9)
    public static let notAnImage = ErrorCode(.notAnImage)
    public static let tooManyImages = ErrorCode(.tooManyImages)
    public static let imageTooLarge = ErrorCode(.imageTooLarge)
    public static let imageOverBudget = ErrorCode(.imageOverBudget)

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
