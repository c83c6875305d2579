/// What should be on the output: the one description every output and every protocol
/// command works in terms of.
public enum Scene: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// Nothing presented: the room name and how to connect.
    case idle
    /// Page `page` (from 1) of the uploaded document `content` (its content id).
    case page(content: String, page: Int)
    /// Only `part` of that page, fitted to the output like a page (the slide half of a
    /// beamer deck with notes on a second screen).
    case pagePart(content: String, page: Int, part: PagePart)
    /// The whole output one colour (blank black or white).
    case blank(RGB)
    /// A card (a poll's chart, a question) drawn over another scene (§24).
    indirect case card(WallCard, over: Scene)

    public var description: String {
        switch self {
        case .idle: return "idle"
        case .page(let c, let p): return "page \(p) of \(c.prefix(12))"
        case .pagePart(let c, let p, let part): return "page \(p) of \(c.prefix(12)) (\(part.rawValue) half)"
        case .blank(let c): return "blank \(c)"
        case .card(let card, let base): return "\(card) over \(base)"
        }
    }
}
