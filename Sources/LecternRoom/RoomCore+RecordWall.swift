import LecternModel
import LecternProtocol

/// A wall of several panes in the meeting record (docs/protocol.md §26.1): one record page
/// with every pane at its place as the wall showed it: each pane's page (vectors kept) with
/// its ink, a clip as its first frame, a blanked pane its colour, an empty pane the
/// background; the bars and gaps as on the wall.
extension RoomCore {
    /// The wall as the record keeps it now (nil: no pane shows a page or a clip: nothing to
    /// record, as the idle screen isn't).
    var recordWallView: RecordWall? {
        var panes: [RecordWall.Pane] = []
        var drivers: [String?] = []
        for pane in wall.panes {
            let q = pane.queue ?? screen
            panes.append(q.clip.map { .clip(content: $0.content.id.hex, name: $0.content.name) } ?? Self.recordPane(q.committed))
            drivers.append(pane.isMain ? recordPresenter : pane.driver.flatMap { floor.name(of: $0) })
        }
        guard panes.contains(where: { $0.content != nil }) else { return nil }
        // The output's shape when it was shown (16:9 until the output has said its mode).
        let w = output.width > 0 ? Int(output.width) : 1920
        let h = output.height > 0 ? Int(output.height) : 1080
        return RecordWall(layout: wall.layout, width: w, height: h, panes: panes, drivers: drivers)
    }

    /// What a pane's committed screen looks like in the record.
    static func recordPane(_ c: CommittedScreen) -> RecordWall.Pane {
        switch c.blank {
        case .black: return .blank(white: false)
        case .white: return .blank(white: true)
        case .none: break
        }
        guard let content = c.content, content.kind == .pdf, c.page >= 1 else { return .empty }
        return .page(content: content.id.hex, name: content.name, page: c.page, part: c.part, strokes: [])
    }
}
