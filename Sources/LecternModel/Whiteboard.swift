/// Whiteboards: blank 16:9 pages to ink on, white or black. They are the pages of two
/// decks that exist without an upload — one of white boards, one of black ones — with fixed
/// content ids no SHA-256 of a file will ever be, so everything that works on a deck's page
/// (next and previous, ink, the state, a restart) works on a whiteboard.
public enum Whiteboard {
    /// The content id (hex) of the white boards and of the black ones.
    public static let whiteHex = String(repeating: "f", count: 62) + "01"
    public static let blackHex = String(repeating: "f", count: 62) + "02"
    /// Most boards of each colour in a meeting.
    public static let maxBoards = 99
    /// A whiteboard's shape: 16:9.
    public static let shape = SourceShape(width: 1600, height: 900)

    /// The board's colour if `content` is a whiteboard deck.
    public static func background(_ content: String) -> RGB? {
        switch content {
        case whiteHex: return .white
        case blackHex: return .black
        default: return nil
        }
    }

    public static func hex(black: Bool) -> String { black ? blackHex : whiteHex }
    public static func name(black: Bool) -> String { black ? "Whiteboard (black)" : "Whiteboard" }
}
