import LecternModel
import LecternProtocol

/// The wall's arrangement survives a restart (docs/protocol.md §9.7, §14.4): the layout,
/// each pane's page and its driver are saved with the room (`SavedWall`) after every change
/// of them; at start the stage already shows the saved plan (the service shows it before
/// the room runs), and the room takes it up again, each driver waiting in its grace period
/// to resume its pane (RoomCore+PaneGrace).
extension RoomCore {
    /// The wall as the saved state keeps it (nil: one full pane).
    var savedWall: SavedWall? {
        guard !wall.isSinglePane else { return nil }
        return SavedWall(
            layout: wall.layout,
            panes: wall.panes.map { pane in
                guard let q = pane.queue else { return SavedWall.Pane(main: true) }
                let c = q.committed
                return SavedWall.Pane(
                    main: false, content: c.content?.id.hex, page: c.page, blank: c.blank.rawValue,
                    driver: pane.driver.flatMap { SavedState.Holder(floor.devices[$0]) }, clip: Self.savedClip(q))
            })
    }

    /// After a restart: the saved layout and panes again, as the stage already shows them;
    /// each pane's driver is put back away, in its grace period, owning what its pane shows;
    /// a pane's clip plays again from where it was.
    mutating func restoreWall(_ saved: SavedWall?, whiteboards: [Int]?) {
        guard let saved else { return }
        guard saved.isWellFormed else {
            log(.warning, "the saved wall (\(saved.layout), \(saved.panes.count) panes) is not one this service writes: one full pane")
            return
        }
        var screens: [CommittedScreen?] = []
        var drivers: [DeviceID?] = []
        for (i, p) in saved.panes.enumerated() {
            let screen = p.main ? nil : saved.screen(ofPane: i, whiteboards: whiteboards, in: catalog)
            screens.append(screen)
            guard !p.main, let d = p.driver, let token = d.token else {
                drivers.append(nil)
                continue
            }
            floor.restoreAbsentDevice(id: d.id, name: d.name, role: d.floorRole, resumeToken: token, now: now)
            // Only the device the file names with its token (not another that has its id).
            guard let back = floor.devices[d.id], back.resumeToken == token else {
                drivers.append(nil)
                continue
            }
            drivers.append(d.id)
            if let c = screen?.content { ledger.addOwner(d.id, of: c.id) }
            log(.info, "waiting \(Int(config.gracePeriod)) s for '\(d.name)' to resume pane \(i)")
        }
        wall.restore(saved.layout, main: saved.panes.firstIndex(where: \.main) ?? 0, screens: screens, drivers: drivers)
        syncOpIDs()
        // Each pane's clip plays again from where it was, paused if it was (the main pane's: `restore`).
        for (i, p) in saved.panes.enumerated() where !p.main {
            if let clip = p.clip { restoreClip(clip, in: .pane(i)) }
        }
    }
}
