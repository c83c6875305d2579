import LecternProtocol

/// Devices away in their grace period that the floor itself doesn't keep: the room keeps a
/// place for a device that drives a pane of the wall (docs/protocol.md §9.6, §9.7), so it
/// gets its id and its pane back when it resumes in time. The floor only keeps such a
/// device waiting; the room says when it has nothing left to come back to.
extension Floor {
    /// After a restart: puts back a device the service saved (a pane's driver), away, in its
    /// grace period, as `restoreAbsentHolder` does for the holder but without the floor.
    /// Nothing happens when its id is taken or there is no grace period.
    public mutating func restoreAbsentDevice(id: DeviceID, name: String, role: Role, resumeToken: ResumeToken, now: Double) {
        guard devices[id] == nil, id >= 1, id <= DeviceID(config.seats), config.gracePeriod > 0 else { return }
        guard !devices.values.contains(where: { $0.resumeToken == resumeToken }) else { return }
        devices[id] = Device(
            id: id, name: name, role: role, resumeToken: resumeToken, connection: nil,
            graceDeadline: now + config.gracePeriod)
    }

    /// A device away in its grace period that has nothing left to come back to (its pane was
    /// handed to someone else or dropped) leaves the room now, as an absent holder does
    /// when its floor ends. Nothing for a connected device, the holder or the delegate.
    public mutating func release(absent id: DeviceID, now: Double) -> [FloorEvent] {
        var ev = expireInto(now: now)
        if let d = devices[id], !d.isConnected, holder != id, delegate != id { remove(id, by: 0, into: &ev) }
        return finish(ev)
    }

    /// The devices away in their grace period, with the deadline of each.
    public var away: [DeviceID: Double] {
        var out: [DeviceID: Double] = [:]
        for d in devices.values where !d.isConnected { if let g = d.graceDeadline { out[d.id] = g } }
        return out
    }
}
