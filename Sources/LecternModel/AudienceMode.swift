/// Who may join as a viewer (the config's `audience`, docs/protocol.md §24.1): with the
/// room passcode or `audience_passcode`, anyone who reaches the room, or nobody.
public enum AudienceMode: String, Sendable, CaseIterable {
    case passcode, open, off
}
