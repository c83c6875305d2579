import LecternModel
import LecternProtocol

/// A clip as `state.json` keeps it: which, where it was (clip time of the frame on screen,
/// seconds), paused or playing, looping. After a restart the room plays it again from
/// there (`RoomCore.restore`), paused if it was.
public struct SavedClip: Codable, Equatable, Sendable {
    public var content: String
    public var position: Double
    public var paused: Bool
    public var loop: Bool

    public init(content: String, position: Double, paused: Bool, loop: Bool) {
        self.content = content
        self.position = position
        self.paused = paused
        self.loop = loop
    }

    /// The clip's id and where to start, if it is still a clip in the store; a position past
    /// the end (or nonsense in the file) starts it from the beginning.
    public func resolve(in catalog: ContentCatalog) -> (content: ContentID, start: Double)? {
        guard let id = ContentID(hex: content), let item = catalog[id], item.kind == .clip else { return nil }
        let length = Double(item.durationMs) / 1000
        let start = position.isFinite && position >= 0 && (length <= 0 || position < length) ? position : 0
        return (id, start)
    }
}
