import LecternModel
import LecternProtocol

/// A clip survives a restart: the saved state carries it (`SavedClip`), and the room plays
/// it again from where it was, paused if it was. A playing clip's position is saved at a
/// bounded rate (`ClipSaveThrottle`), not at every report.
extension RoomCore {
    /// The clip over the main pane's slide as the saved state keeps it.
    var savedClip: SavedClip? { Self.savedClip(screen) }

    /// The clip of a pane's screen as the saved state keeps it (the main pane's, or another's in `SavedWall`).
    static func savedClip(_ q: ScreenQueue) -> SavedClip? {
        guard let c = q.clip else {
            // Being opened again after a restart: keep what was saved until it plays.
            guard let (_, o) = q.opening.first(where: { $0.value.reply == nil }) else { return nil }
            return SavedClip(content: o.content.id.hex, position: o.start, paused: o.paused, loop: o.loop)
        }
        let paused = (c.asked ?? c.progress.state) == .paused
        return SavedClip(content: c.content.id.hex, position: max(0, c.progress.position), paused: paused, loop: c.loop)
    }

    /// Opens the saved clip again in `slot` (no one asked: no reply); `clipOpened` seeks and pauses it.
    mutating func restoreClip(_ saved: SavedClip, in slot: PaneSlot = .main) {
        guard let (id, start) = saved.resolve(in: catalog), let item = catalog[id] else {
            log(.info, "the clip that was playing is no longer in the store")
            return
        }
        startClip(item.snapshot, looping: saved.loop, in: slot, reply: nil, start: start, paused: saved.paused)
    }
}

/// How often a playing clip's position (and the volume) reaches `state.json`: a save at most every
/// `interval` seconds for progress alone (a pause, resume, start or end saves at once), and
/// one owed is made at the next tick, so the file is at most `interval` + a tick behind.
struct ClipSaveThrottle: Equatable, Sendable {
    static let interval = 0.4
    private var last = -Double.infinity
    private var owed = false

    mutating func owe() { owed = true }
    func due(now: Double) -> Bool { owed && now - last >= Self.interval }
    mutating func saved(now: Double) {
        last = now
        owed = false
    }
}
