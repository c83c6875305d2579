/// A file format an upload can be converted from (docs/protocol.md §30.1): its short name
/// on the wire and in the state ("pptx": 1–16 lower-case ASCII letters and digits) and
/// what people call such files ("PowerPoint presentations"), for messages.
public struct SourceFormat: Hashable, Sendable, CustomStringConvertible {
    public let id: String
    public let what: String
    /// A presentation (slides, maybe speaker notes), not a text document or a sheet.
    public let isPresentation: Bool
    public init(_ id: String, _ what: String, presentation: Bool = false) {
        self.id = id
        self.what = what
        self.isPresentation = presentation
    }
    public var description: String { id }
}
