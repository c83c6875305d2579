import LecternModel

/// The errors of photos and images made into decks (docs/protocol.md §30.9): each names the
/// file and the limit, and says what to do instead.
extension LecternError {
    /// images-deck named an upload that is not a photo or image (`position`: from 1).
    public static func notAnImage(position: Int, name: String) -> LecternError {
        LecternError(
            .notAnImage, detail: UInt64(position),
            message: "\(name.prefix(80)) (file \(position) of those chosen) is not a photo or image — a deck of images takes \(ImageFormat.names) files.")
    }
    public static func tooManyImages(count: Int, limit: Int) -> LecternError {
        LecternError(.tooManyImages, detail: UInt64(limit), message: "A deck of images takes at most \(limit) of them (\(count) were chosen) — choose fewer.")
    }
    /// `reason`: the picture's size and the limit ("it is 100000 × 100000 pixels …").
    public static func imageTooLarge(_ name: String, limitMegapixels: Int, reason: String) -> LecternError {
        LecternError(.imageTooLarge, detail: UInt64(limitMegapixels), message: "\(name.prefix(80)) can't be shown: \(reason) — save a smaller copy and upload that.")
    }
    /// `reason`: the budget ("decoding it needs more than the 384 MB …").
    public static func imageOverBudget(_ name: String, limitMB: Int, reason: String) -> LecternError {
        LecternError(
            .imageOverBudget, detail: UInt64(limitMB) * 1_000_000,
            message: "\(name.prefix(80)) can't be shown: \(reason) — save a smaller copy (as JPEG) and upload that.")
    }
}
