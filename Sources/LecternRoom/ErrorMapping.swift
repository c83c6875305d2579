import LecternModel
import LecternProtocol

extension LecternError {
    /// The one mapping from anything that went wrong on the appliance to what a client is
    /// told: protocol errors as they are, content errors as `pageOutOfRange` or
    /// `unreadableContent` (with the words the presenter understands), anything else
    /// `internalError`. Messages name no server path: what the appliance keeps where is
    /// for its log, not for the room.
    public init(mapping error: Error) {
        if let l = error as? LecternError {
            self = l
        } else if let c = error as? ContentError {
            switch c {
            case .pageOutOfRange(let p, let n): self = .pageOutOfRange(page: UInt32(max(0, p)), pageCount: UInt32(n))
            case .notAPDF: self = LecternError(.unsupportedFileType, message: UploadFormats.refusal)   // what it shows, and what to do (§30.10)
            case .unreadable(_, let reason): self = LecternError(.unreadableContent, message: "The file can't be read (\(reason)).")
            default: self = LecternError(.unreadableContent, message: c.description)
            }
        } else {
            self = .internalError
        }
    }
}
