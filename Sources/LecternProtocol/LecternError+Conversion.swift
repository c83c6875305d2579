import LecternModel

/// The errors of converted files (docs/protocol.md §30.5): each names the file and the
/// limit it went past, and says what to do instead.
extension LecternError {
    /// present, play, preview or wall-add of an upload whose PDF doesn't exist yet.
    public static func stillConverting(_ name: String) -> LecternError {
        LecternError(.stillConverting, message: "\(name.prefix(80)) is still being converted — it can be shown once it is ready.")
    }
    /// The appliance has no converter for the file's format (not installed, or turned off).
    public static func conversionUnavailable(_ what: String) -> LecternError {
        LecternError(
            .conversionUnavailable,
            message: "This appliance can't convert \(what) (its converter is not installed or is turned off) — export the file as PDF and upload that.")
    }
    public static func conversionFailed(_ name: String, _ why: String) -> LecternError {
        LecternError(.conversionFailed, message: "\(name.prefix(80)) couldn't be converted: \(why) — export it as PDF and upload that.")
    }
    public static func conversionTimedOut(_ name: String, seconds: Int) -> LecternError {
        LecternError(
            .conversionTimedOut, detail: UInt64(seconds),
            message: "Converting \(name.prefix(80)) took longer than the \(seconds) s a conversion may take — export it as PDF and upload that.")
    }
    /// A document whose parts unpack to more than the limit (a zip bomb, or simply huge).
    public static func conversionTooLarge(_ name: String, unpackedLimit: UInt64) -> LecternError {
        LecternError(
            .conversionTooLarge, detail: unpackedLimit,
            message: "\(name.prefix(80)) unpacks to more than the \(humanBytes(unpackedLimit)) a document may — export it as PDF and upload that.")
    }
    public static func conversionTooManyPages(_ name: String, limit: Int) -> LecternError {
        LecternError(
            .conversionTooManyPages, detail: UInt64(limit),
            message: "\(name.prefix(80)) has more than the \(limit) pages a converted document may have — export the part you need as PDF.")
    }
    public static func conversionOutOfMemory(_ name: String, limitMB: Int) -> LecternError {
        LecternError(
            .conversionOutOfMemory, detail: UInt64(limitMB) * 1_000_000,
            message: "Converting \(name.prefix(80)) needs more than the \(limitMB) MB of memory a conversion may use — export it as PDF and upload that.")
    }
    public static func conversionQueueFull(limit: Int) -> LecternError {
        LecternError(
            .conversionQueueFull, detail: UInt64(limit),
            message: "\(limit) files are waiting to be converted already — try again in a minute.")
    }
    /// `why`: "its uploader cancelled it", "the moderator cancelled it", "the meeting ended".
    public static func conversionCancelled(_ name: String, _ why: String) -> LecternError {
        LecternError(.conversionCancelled, message: "Converting \(name.prefix(80)) was stopped: \(why).")
    }
    public static let notConverting = LecternError(standard: .notConverting)
    /// A page past those ready of a deck whose first page is shown while the rest converts
    /// (§30.8): the wall stays where it is. Detail: the pages ready.
    public static func pageStillConverting(_ name: String, page: Int, ready: Int) -> LecternError {
        LecternError(
            .pageStillConverting, detail: UInt64(max(0, ready)),
            message: "Slide \(page) of \(name.prefix(80)) is still being converted — it can be shown in a few seconds; the wall stays on slide \(ready).")
    }
}
