import LecternModel
import LecternProtocol

/// Configuration of the floor state machine.
public struct FloorConfig: Sendable, Equatable {
    public var floorMode: FloorMode
    /// Seconds the holder keeps the floor after its connection drops.
    public var gracePeriod: Double
    /// `max_clients`: presenters at most (and 253 at most, see `presenterSeats`).
    public var capacity: Int
    /// Presenters at most: `capacity`, but never all 254 ids, so the moderator's seat exists.
    public var presenterSeats: Int { min(capacity, Self.deviceIDs - 1) }
    /// Devices at most, moderators included: one place beyond the presenters is always kept
    /// for a moderator (who may come in to a full room to remove someone). §8.1.
    public var seats: Int { presenterSeats + 1 }
    static let deviceIDs = 254

    public init(floorMode: FloorMode, gracePeriod: Double = 60, capacity: Int = 254) {
        self.floorMode = floorMode
        self.gracePeriod = gracePeriod
        self.capacity = max(1, min(254, capacity))
    }
}

/// What the service must do after a state-machine step, in order.
public enum FloorEvent: Equatable, Sendable {
    /// Send floor-granted (0x08, tag 0) to this device: it now drives the screen (or, for
    /// `.returned`, drives it again). Only for changes someone else or the system caused.
    case floorGranted(to: DeviceID, reason: FloorGrantReason, by: DeviceID)
    /// Send floor-withdrawn (0x09, tag 0) to this device.
    case floorWithdrawn(from: DeviceID, reason: FloorLossReason, by: DeviceID)
    /// Return the output to the idle screen (the floor ended or changed owner).
    case screenToIdle
    /// Send this error (tag 0) on that connection and close it. The meeting has already
    /// forgotten the connection: a later `disconnect` for it does nothing.
    case closeConnection(ConnectionID, LecternError)
    /// The device left the room for good (disconnect, unregister, kick, grace over):
    /// forget what the service keeps about it.
    case deviceLeft(DeviceID)
    /// Push a new state snapshot to every registered device. At most once per step, last.
    case stateChanged
}

/// The result of a successful register.
public struct Registration: Equatable, Sendable {
    public var deviceID: DeviceID
    public var role: Role
    public var resumeToken: ResumeToken
    public var resumed: Bool
    public var floorRestored: Bool
    public var events: [FloorEvent]

    /// The register-ok message to send.
    public var reply: Message {
        .registerOK(RegisterOK(deviceID: deviceID, role: role, resumed: resumed, floorRestored: floorRestored, resumeToken: resumeToken))
    }
}

/// The result of a floor request.
public struct FloorRequestResult: Equatable, Sendable {
    public var ack: FloorAck
    public var events: [FloorEvent]
}

/// What a control signal turned out to be.
public enum ControlOutcome: Equatable, Sendable {
    /// A screen signal the sender may give: the service applies it to the screen (and may
    /// still fail, e.g. `pageOutOfRange`), then answers control-ok.
    case screen(ControlSignal)
    /// A floor signal (hand over, take back, return), already applied: answer control-ok
    /// and carry out the events.
    case floor([FloorEvent])
}

/// The floor: who is in the room (devices, roles), who has the floor, the queue,
/// hand-over and the grace period. A pure state machine: no clock, no I/O, no threads. Every method takes `now` (seconds of a
/// monotonic clock), first expires grace periods that ran out, and returns the events
/// the service must carry out; a refused action throws the `LecternError` to answer
/// with and changes nothing. A value: the room's core holds it and mutates it in place.
public struct Floor: Equatable, Sendable {
    public struct Device: Equatable, Sendable {
        public let id: DeviceID
        public var name: String
        public let role: Role
        public let resumeToken: ResumeToken
        /// nil while in the grace period.
        public var connection: ConnectionID?
        public var graceDeadline: Double?
        public var isConnected: Bool { connection != nil }
    }

    public let config: FloorConfig
    public internal(set) var devices: [DeviceID: Device] = [:]
    /// Who has the floor (the owner).
    public internal(set) var holder: DeviceID?
    /// Who holds it on loan after a hand-over.
    public internal(set) var delegate: DeviceID?
    /// Waiting for the floor (moderated mode), first in line first.
    public internal(set) var queue: [DeviceID] = []
    public internal(set) var doNotDisturb = false

    public init(config: FloorConfig) {
        self.config = config
    }

    /// Who drives the screen: the delegate during a hand-over, else the holder.
    public var driver: DeviceID? { delegate ?? holder }

    public func deviceID(forConnection c: ConnectionID) -> DeviceID? {
        devices.values.first { $0.connection == c }?.id
    }
    public func connection(of id: DeviceID) -> ConnectionID? { devices[id]?.connection }
    public func role(of id: DeviceID) -> Role? { devices[id]?.role }
    public func name(of id: DeviceID) -> String? { devices[id]?.name }
    /// Connected devices (for broadcasting).
    public var connectedDevices: [Device] { devices.values.filter(\.isConnected).sorted { $0.id < $1.id } }
    public var hasConnectedModerator: Bool { devices.values.contains { $0.role == .moderator && $0.isConnected } }
    /// The earliest grace deadline, if any: call `expire(now:)` then.
    public var nextDeadline: Double? { devices.values.compactMap(\.graceDeadline).min() }

    // MARK: - registration

    /// Registers an authenticated connection (verify the proof first). `newToken` draws a
    /// newcomer's resume token (the room's generator; tests give their own). With a resume token
    /// of a device still in the room and the same role: the same id back, and the floor if
    /// it had it; a connection still open for that device is closed (`.replaced`). Any
    /// other token is ignored: a fresh id, no floor.
    public mutating func register(
        connection: ConnectionID, name: String, role: Role, resumeToken: ResumeToken?, now: Double, newToken: () -> ResumeToken
    ) throws(LecternError) -> Registration {
        guard deviceID(forConnection: connection) == nil else { throw .alreadyRegistered }
        guard DeviceName.isValid(name) else { throw .invalidName }
        var ev = expireInto(now: now)

        if let token = resumeToken, let old = findDevice(token: token), old.role == role {
            var d = old
            if let previous = d.connection { ev.append(.closeConnection(previous, .replaced)) }
            d.connection = connection
            d.graceDeadline = nil
            d.name = name
            devices[d.id] = d
            let restored = holder == d.id || delegate == d.id
            if restored { ev.append(.floorGranted(to: d.id, reason: .restored, by: 0)) }
            ev.append(.stateChanged)
            return Registration(deviceID: d.id, role: role, resumeToken: d.resumeToken, resumed: true, floorRestored: restored, events: finish(ev))
        }

        let id = try freeSeat(for: role)
        var token = newToken()
        while devices.values.contains(where: { $0.resumeToken == token }) { token = newToken() }
        devices[id] = Device(id: id, name: name, role: role, resumeToken: token, connection: connection, graceDeadline: nil)
        ev.append(.stateChanged)
        return Registration(deviceID: id, role: role, resumeToken: token, resumed: false, floorRestored: false, events: finish(ev))
    }

    /// The lowest free id for a newcomer of this role, or `roomFull` naming the limit that
    /// applied: presenters fill `presenterSeats`; a moderator may take the place kept
    /// beyond them, up to `seats` devices in all.
    func freeSeat(for role: Role) throws(LecternError) -> DeviceID {
        if role != .moderator, devices.values.filter({ $0.role != .moderator }).count >= config.presenterSeats {
            throw .roomFull(capacity: config.presenterSeats)
        }
        guard devices.count < config.seats, let id = (1...DeviceID(config.seats)).first(where: { devices[$0] == nil }) else {
            throw .roomFull(capacity: role == .moderator ? config.seats : config.presenterSeats)
        }
        return id
    }

    /// After a restart: puts back the floor holder the service saved, as a device that is
    /// away, in its grace period. It gets its id and the floor back when it reconnects with
    /// its resume token before `now + gracePeriod`; after that, the usual expiry applies.
    public mutating func restoreAbsentHolder(id: DeviceID, name: String, role: Role, resumeToken: ResumeToken, now: Double) {
        guard holder == nil, devices[id] == nil, id >= 1, id <= DeviceID(config.seats), config.gracePeriod > 0 else { return }
        devices[id] = Device(
            id: id, name: name, role: role, resumeToken: resumeToken, connection: nil,
            graceDeadline: now + config.gracePeriod)
        holder = id
    }

    private func findDevice(token: ResumeToken) -> Device? {
        var found: Device? = nil
        // Compare against every device, in constant time each, so timing reveals nothing.
        for d in devices.values.sorted(by: { $0.id < $1.id }) where d.resumeToken.constantTimeEquals(token) { found = d }
        return found
    }

    /// The connection closed without unregister. The floor holder keeps the floor for the
    /// grace period (its content stays on screen), and so does a device the room keeps a
    /// place for (`keep`: it drives a pane of the wall, §9.7); everyone else leaves the room.
    public mutating func disconnect(connection: ConnectionID, now: Double, keep: (DeviceID) -> Bool = { _ in false }) -> [FloorEvent] {
        var ev = expireInto(now: now)
        guard let id = deviceID(forConnection: connection) else { return finish(ev) }
        if (holder == id || keep(id)) && config.gracePeriod > 0 {
            devices[id]?.connection = nil
            devices[id]?.graceDeadline = now + config.gracePeriod
            ev.append(.stateChanged)
        } else {
            remove(id, by: 0, into: &ev)
        }
        return finish(ev)
    }

    /// unregister (0x04): leave for good, no grace period. Answer unregister-ok, then close.
    public mutating func unregister(connection: ConnectionID, now: Double) -> [FloorEvent] {
        var ev = expireInto(now: now)
        if let id = deviceID(forConnection: connection) { remove(id, by: id, into: &ev) }
        return finish(ev)
    }

    /// Ends grace periods that ran out: the holder leaves, the screen goes idle.
    public mutating func expire(now: Double) -> [FloorEvent] { finish(expireInto(now: now)) }

    mutating func expireInto(now: Double) -> [FloorEvent] {
        var ev: [FloorEvent] = []
        for d in devices.values.sorted(by: { $0.id < $1.id }) {
            if let deadline = d.graceDeadline, deadline <= now { remove(d.id, by: 0, into: &ev) }
        }
        return ev
    }

    /// Removes a device from the room; floor consequences included.
    mutating func remove(_ id: DeviceID, by: DeviceID, into ev: inout [FloorEvent]) {
        guard devices[id] != nil else { return }
        devices[id] = nil
        queue.removeAll { $0 == id }
        if holder == id {
            endFloor(by: by, into: &ev)
        } else if delegate == id {
            delegate = nil
            if let h = holder, devices[h]?.isConnected == true { ev.append(.floorGranted(to: h, reason: .returned, by: by)) }
        }
        ev.append(.deviceLeft(id))
        ev.append(.stateChanged)
    }

    /// The floor ends: nobody has it, the screen goes idle. The holder is not told (it
    /// acted itself or is told by the caller); a delegate is.
    mutating func endFloor(by: DeviceID, into ev: inout [FloorEvent]) {
        if let d = delegate, d != by { ev.append(.floorWithdrawn(from: d, reason: .ownerLostFloor, by: by)) }
        let old = holder
        holder = nil
        delegate = nil
        ev.append(.screenToIdle)
        ev.append(.stateChanged)
        // A holder waiting in its grace period has nothing left to come back to.
        if let o = old, let dev = devices[o], !dev.isConnected { remove(o, by: by, into: &ev) }
    }

    /// `newHolder` gets the floor; the previous holder and delegate lose it.
    mutating func giveFloor(to newHolder: DeviceID, grant: FloorGrantReason, loss: FloorLossReason, by: DeviceID, into ev: inout [FloorEvent]) {
        let oldHolder = holder, oldDelegate = delegate
        if let h = oldHolder, h != newHolder, h != by, devices[h]?.isConnected == true {
            ev.append(.floorWithdrawn(from: h, reason: loss, by: by))
        }
        if let d = oldDelegate, d != newHolder, d != by {
            ev.append(.floorWithdrawn(from: d, reason: .ownerLostFloor, by: by))
        }
        queue.removeAll { $0 == newHolder }
        holder = newHolder
        delegate = nil
        ev.append(.screenToIdle)
        if newHolder != by { ev.append(.floorGranted(to: newHolder, reason: grant, by: by)) }
        ev.append(.stateChanged)
        if let h = oldHolder, h != newHolder, let dev = devices[h], !dev.isConnected { remove(h, by: by, into: &ev) }
    }

    /// After every step: without a connected moderator, do-not-disturb switches off and a
    /// free floor in a moderated room goes to the first in the queue.
    mutating func finish(_ events: [FloorEvent]) -> [FloorEvent] {
        var ev = events
        if !hasConnectedModerator {
            if doNotDisturb { doNotDisturb = false; ev.append(.stateChanged) }
            if config.floorMode == .moderated, holder == nil, let next = queue.first {
                queue.removeFirst()
                holder = next
                ev.append(.floorGranted(to: next, reason: .queueAdvanced, by: 0))
                ev.append(.stateChanged)
            }
        }
        // One screenToIdle at most, and stateChanged once, last.
        var out: [FloorEvent] = []
        var idle = false, changed = false
        for e in ev {
            switch e {
            case .screenToIdle: if !idle { idle = true; out.append(e) }
            case .stateChanged: changed = true
            default: out.append(e)
            }
        }
        if changed { out.append(.stateChanged) }
        return out
    }

    // MARK: - permission helpers

    func requireDevice(_ id: DeviceID) throws(LecternError) -> Device {
        guard let d = devices[id], d.isConnected else { throw .notRegistered }
        return d
    }

    func requireModerator(_ id: DeviceID) throws(LecternError) {
        guard try requireDevice(id).role == .moderator else { throw .moderatorOnly }
    }

    func requireConnectedTarget(_ id: DeviceID) throws(LecternError) {
        guard devices[id]?.isConnected == true else { throw .noSuchDevice(id) }
    }

    /// Throws unless `id` may drive the screen now: the driver, or any moderator.
    public func checkCanDrive(_ id: DeviceID) throws(LecternError) {
        let d = try requireDevice(id)
        if d.role == .moderator || driver == id { return }
        if holder == id, let del = delegate { throw .handedOver(to: del) }
        if let h = holder { throw .floorTaken(holder: h) }
        throw .noFloor
    }

    public func canDriveScreen(_ id: DeviceID) -> Bool {
        do { try checkCanDrive(id); return true } catch { return false }
    }

    /// Whether `id` leads the room's presentation: may drive the screen (the driver or a
    /// moderator), or holds the floor it handed over. Who may clear ink, for one.
    public func isLead(_ id: DeviceID) -> Bool { holder == id || canDriveScreen(id) }

    /// Throws unless `id` may put that content on screen: may drive, and uploaded it
    /// (`isUploader`, which the service knows) or is a moderator.
    public func checkCanPresent(_ id: DeviceID, isUploader: Bool) throws(LecternError) {
        try checkCanDrive(id)
        if devices[id]?.role != .moderator && !isUploader { throw .notYourContent }
    }

    // MARK: - state

    public func floorSnapshot(now: Double) -> FloorSnapshot {
        var grace: UInt64? = nil
        if let h = holder, let deadline = devices[h]?.graceDeadline {
            grace = UInt64((max(0, deadline - now) * 1000).rounded())
        }
        return FloorSnapshot(holder: holder, delegate: delegate, queue: queue, doNotDisturb: doNotDisturb, graceRemainingMs: grace)
    }

    public func deviceSnapshots() -> [DeviceSnapshot] {
        devices.values.sorted { $0.id < $1.id }.map { DeviceSnapshot(id: $0.id, name: $0.name, role: $0.role, connected: $0.isConnected) }
    }

    /// The whole snapshot, with the screen part the service owns.
    public func snapshot(room: String, revision: UInt64, screen: ScreenSnapshot, now: Double) -> Snapshot {
        Snapshot(
            revision: revision, room: room, floorMode: config.floorMode, floor: floorSnapshot(now: now),
            devices: deviceSnapshots(), screen: screen)
    }
}
