/// What can go wrong with a presenter's file, in words the presenter understands.
public enum ContentError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case notAPDF
    case damaged(detail: String)
    case passwordProtected
    case noPages
    case pageOutOfRange(page: Int, pageCount: Int)
    case unreadable(path: String, reason: String)
    case unsupportedMedia(detail: String)
    /// The page took longer than the render budget (`seconds`) to draw: it is not shown.
    case tooSlow(page: Int, seconds: Double)
    /// Drawing the page took more than the renderer may have (`megabytes` of memory, or
    /// its CPU backstop), or crashed the renderer: it is not shown.
    case overLimits(page: Int, megabytes: Int)

    /// A stable short name (used in logs, tests and the protocol's error detail).
    public var code: String {
        switch self {
        case .empty: return "empty"
        case .notAPDF: return "not-a-pdf"
        case .damaged: return "damaged"
        case .passwordProtected: return "password-protected"
        case .noPages: return "no-pages"
        case .pageOutOfRange: return "page-out-of-range"
        case .unreadable: return "unreadable"
        case .unsupportedMedia: return "unsupported-media"
        case .tooSlow: return "too-slow"
        case .overLimits: return "over-limits"
        }
    }

    public var description: String {
        switch self {
        case .empty: return "The file is empty."
        case .notAPDF: return "This is not a PDF file. Export your slides as PDF and try again."
        case .damaged(let d): return "The PDF is damaged and can't be shown (\(d)). Export it again and re-upload."
        case .passwordProtected: return "The PDF is protected by a password. Save a copy without a password and upload that."
        case .noPages: return "The PDF has no pages."
        case .pageOutOfRange(let p, let n): return "There is no page \(p): the document has \(n) page\(n == 1 ? "" : "s")."
        case .unreadable(let path, let r): return "Can't read \(path): \(r)."
        case .unsupportedMedia(let d): return "This file can't be played: \(d)."
        case .tooSlow(let p, let s):
            return
                "Page \(p) takes longer than \(s == s.rounded() ? String(Int(s)) : String(s)) s to draw, so it isn't shown. Simplify it (flatten huge images or patterns) and re-upload."
        case .overLimits(let p, let mb):
            return
                "Page \(p) needs more than the \(mb) MB of memory a page may use to draw (or broke the renderer), so it isn't shown. Simplify it (flatten huge images or patterns) and re-upload."
        }
    }
}
