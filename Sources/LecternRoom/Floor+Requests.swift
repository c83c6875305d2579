import LecternModel
import LecternProtocol

/// The floor's requests: ask for it, release it, the moderator's actions, hand-over,
/// and control signals (which need the floor to drive the screen).
extension Floor {
    /// floor-request (0x06).
    public mutating func requestFloor(by id: DeviceID, now: Double) throws(LecternError) -> FloorRequestResult {
        var ev = expireInto(now: now)
        let d = try requireDevice(id)
        if holder == id { return FloorRequestResult(ack: .holder, events: finish(ev)) }
        if let i = queue.firstIndex(of: id) { return FloorRequestResult(ack: .queued(position: UInt16(i + 1)), events: finish(ev)) }
        if doNotDisturb && d.role != .moderator { throw .doNotDisturb }
        if config.floorMode == .open || d.role == .moderator
            || (holder == nil && queue.isEmpty && !hasConnectedModerator)
        {
            giveFloor(to: id, grant: .requested, loss: .takenOver, by: id, into: &ev)
            return FloorRequestResult(ack: .holder, events: finish(ev))
        }
        queue.append(id)
        ev.append(.stateChanged)
        return FloorRequestResult(ack: .queued(position: UInt16(queue.count)), events: finish(ev))
    }

    /// floor-release (0x0A): the holder gives the floor up (screen goes idle), a delegate
    /// gives it back to the holder, a queued device leaves the queue.
    public mutating func releaseFloor(by id: DeviceID, now: Double) throws(LecternError) -> [FloorEvent] {
        var ev = expireInto(now: now)
        _ = try requireDevice(id)
        if holder == id {
            endFloor(by: id, into: &ev)
        } else if delegate == id {
            endHandOver(by: id, into: &ev)
        } else if let i = queue.firstIndex(of: id) {
            queue.remove(at: i)
            ev.append(.stateChanged)
        } else {
            throw .noFloor
        }
        return finish(ev)
    }

    /// floor-moderate (0x0B).
    public mutating func moderate(_ action: FloorAction, target: DeviceID, by id: DeviceID, now: Double) throws(LecternError) -> [FloorEvent] {
        switch action {
        case .grant: return try grant(target, by: id, now: now)
        case .withdraw: return try withdraw(target == 0 ? nil : target, by: id, now: now)
        case .reject: return try reject(target, by: id, now: now)
        case .kick: return try kick(target, by: id, now: now)
        case .dndOn: return try setDoNotDisturb(true, by: id, now: now)
        case .dndOff: return try setDoNotDisturb(false, by: id, now: now)
        }
    }

    /// Moderator: give the floor to `target` (queued or not); the holder loses it.
    public mutating func grant(_ target: DeviceID, by id: DeviceID, now: Double) throws(LecternError) -> [FloorEvent] {
        var ev = expireInto(now: now)
        try requireModerator(id)
        try requireConnectedTarget(target)
        if holder == target { return finish(ev) }
        giveFloor(to: target, grant: .granted, loss: .grantedToOther, by: id, into: &ev)
        return finish(ev)
    }

    /// Moderator: take the floor away from `target` (nil: from whoever has it). From the
    /// holder: the floor ends. From a delegate: the hand-over ends.
    public mutating func withdraw(_ target: DeviceID?, by id: DeviceID, now: Double) throws(LecternError) -> [FloorEvent] {
        var ev = expireInto(now: now)
        try requireModerator(id)
        guard let h = holder else { throw .floorFree }
        let t = target ?? h
        if t == h {
            if t != id, devices[t]?.isConnected == true { ev.append(.floorWithdrawn(from: t, reason: .withdrawn, by: id)) }
            endFloor(by: id, into: &ev)
        } else if t == delegate {
            if t != id { ev.append(.floorWithdrawn(from: t, reason: .withdrawn, by: id)) }
            delegate = nil
            if h != id, devices[h]?.isConnected == true { ev.append(.floorGranted(to: h, reason: .returned, by: id)) }
            ev.append(.stateChanged)
        } else {
            throw .invalidTarget(t, "Device \(t) doesn't have the floor.")
        }
        return finish(ev)
    }

    /// Moderator: remove `target` from the queue.
    public mutating func reject(_ target: DeviceID, by id: DeviceID, now: Double) throws(LecternError) -> [FloorEvent] {
        var ev = expireInto(now: now)
        try requireModerator(id)
        guard let i = queue.firstIndex(of: target) else { throw .notQueued(target) }
        queue.remove(at: i)
        if target != id { ev.append(.floorWithdrawn(from: target, reason: .requestRejected, by: id)) }
        ev.append(.stateChanged)
        return finish(ev)
    }

    /// Moderator: remove a device from the room now (no grace period, token void).
    public mutating func kick(_ target: DeviceID, by id: DeviceID, now: Double) throws(LecternError) -> [FloorEvent] {
        var ev = expireInto(now: now)
        try requireModerator(id)
        guard target != id else { throw .invalidTarget(target, "You can't remove yourself — disconnect instead.") }
        guard let d = devices[target] else { throw .noSuchDevice(target) }
        if let c = d.connection { ev.append(.closeConnection(c, .kicked)) }
        remove(target, by: id, into: &ev)
        return finish(ev)
    }

    /// The meeting ended (docs/protocol.md §27): every device but `keeping` (wall views)
    /// leaves now, told why, with no grace period and its token void; the queue and
    /// do-not-disturb go with them, the screen goes idle.
    public mutating func endMeeting(keeping: Set<DeviceID>, now: Double) -> [FloorEvent] {
        var ev = expireInto(now: now)
        for d in devices.values.sorted(by: { $0.id < $1.id }) where !keeping.contains(d.id) {
            if let c = d.connection { ev.append(.closeConnection(c, .meetingEnded)) }
            remove(d.id, by: 0, into: &ev)
        }
        queue = []
        if doNotDisturb { doNotDisturb = false }
        ev.append(.screenToIdle)
        ev.append(.stateChanged)
        return finish(ev)
    }

    /// Moderator: do-not-disturb refuses new floor requests (the queue stays).
    public mutating func setDoNotDisturb(_ on: Bool, by id: DeviceID, now: Double) throws(LecternError) -> [FloorEvent] {
        var ev = expireInto(now: now)
        try requireModerator(id)
        if doNotDisturb != on { doNotDisturb = on; ev.append(.stateChanged) }
        return finish(ev)
    }

    /// Hand-over (signal 0xFD): the holder (or a moderator) lends the floor to `target`,
    /// who drives the screen until the hand-over ends.
    public mutating func handOver(to target: DeviceID, by id: DeviceID, now: Double) throws(LecternError) -> [FloorEvent] {
        var ev = expireInto(now: now)
        let d = try requireDevice(id)
        guard let h = holder else { throw d.role == .moderator ? .floorFree : .noFloor }
        guard h == id || d.role == .moderator else { throw .floorTaken(holder: h) }
        try requireConnectedTarget(target)
        guard target != h else { throw .invalidTarget(target, "Device \(target) already has the floor.") }
        if delegate == target { return finish(ev) }
        if let old = delegate, old != id { ev.append(.floorWithdrawn(from: old, reason: .handOverEnded, by: id)) }
        delegate = target
        if target != id { ev.append(.floorGranted(to: target, reason: .handedOver, by: id)) }
        ev.append(.stateChanged)
        return finish(ev)
    }

    /// Take back (signal 0xFE) and return (0xFF): the hand-over ends and the holder drives
    /// again. Accepted from the holder, the delegate and any moderator.
    public mutating func endHandOver(by id: DeviceID, now: Double) throws(LecternError) -> [FloorEvent] {
        var ev = expireInto(now: now)
        let d = try requireDevice(id)
        guard let h = holder else { throw .floorFree }
        guard let del = delegate else { throw .notHandedOver }
        guard id == h || id == del || d.role == .moderator else { throw .floorTaken(holder: h) }
        endHandOver(by: id, into: &ev)
        return finish(ev)
    }

    public mutating func takeBack(by id: DeviceID, now: Double) throws(LecternError) -> [FloorEvent] { try endHandOver(by: id, now: now) }
    public mutating func returnFloor(by id: DeviceID, now: Double) throws(LecternError) -> [FloorEvent] { try endHandOver(by: id, now: now) }

    private mutating func endHandOver(by id: DeviceID, into ev: inout [FloorEvent]) {
        guard let del = delegate else { return }
        if del != id { ev.append(.floorWithdrawn(from: del, reason: .handOverEnded, by: id)) }
        delegate = nil
        if let h = holder, h != id, devices[h]?.isConnected == true { ev.append(.floorGranted(to: h, reason: .returned, by: id)) }
        ev.append(.stateChanged)
    }

    /// control (0x0C): floor signals are applied here; screen signals are checked for
    /// permission and handed back for the service to apply.
    public mutating func control(_ signal: ControlSignal, by id: DeviceID, now: Double) throws(LecternError) -> ControlOutcome {
        switch signal {
        case .handOver(let target): return .floor(try handOver(to: target, by: id, now: now))
        case .takeBack, .returnFloor: return .floor(try endHandOver(by: id, now: now))
        case .next, .prev, .goto, .blank, .unblank, .transitions:
            try checkCanDrive(id)
            return .screen(signal)
        }
    }
}
