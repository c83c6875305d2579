/// Ink and the pointer over a live share (docs/protocol.md §29.8) are kept and drawn as a
/// page's are, in the coordinates of the share's pane (0…1 of the pane, the state's
/// `ink.box`), under this pseudo content id with the share's source serial as the page
/// number. Never a real content id (those are 64 hex digits); never saved, and gone with the
/// share.
public enum ShareInk {
    public static let content = "share"

    /// Whether `content` names a live share's ink rather than a document's.
    public static func isShare(_ content: String) -> Bool { content == Self.content }
}
