import LecternProtocol

/// The code on the wall (`screen_code = true`, `ScreenCode`): the core decides when it
/// changes (a meeting ended, or its time is up) and draws the new one; the shell derives
/// the keys for it off the loop (`.newScreenCode`) and shows it once they are in force.
extension RoomCore {
    /// On each tick: a new code when a meeting ended or the old one's time is up.
    mutating func screenCodeTick() {
        guard var code = screenCode else { return }
        var random = self.random
        let changed = code.check(now: now, devices: floor.devices.count, random: { UInt32(truncatingIfNeeded: random.word()) })
        self.random = random
        screenCode = code
        guard changed else { return }
        emit(.newScreenCode(code.code))
        log(.info, "a new code on the wall (\(code.previous == nil ? "first" : "the meeting ended or its time was up"))")
    }

    /// Connection `id` registered: a floor device starts a meeting, a viewer doesn't.
    mutating func screenCodeRegistered(_ id: ConnectionID) {
        let floorDevice = isFloorDevice(id)
        screenCode?.registered(floorDevice: floorDevice)
    }
}
