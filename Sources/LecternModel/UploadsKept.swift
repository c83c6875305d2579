/// What becomes of presenters' uploads when a meeting ends (the config's `uploads_kept`,
/// docs/protocol.md §27): removed with it, or kept when stored that day (UTC).
public enum UploadsKept: String, Sendable, CaseIterable {
    case meeting, day
}
