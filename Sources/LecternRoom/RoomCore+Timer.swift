import LecternModel
import LecternProtocol

/// The talk timer's requests and pushes (docs/protocol.md §20.4); the timer itself is
/// `TalkTimer`.
extension RoomCore {
    /// Every half second: a timer entering (or leaving) its warning pushes the state, so
    /// every device changes colour at once.
    mutating func timerTick() {
        if timer.warning(at: wallTime) != timerWarned { pushState() }
    }

    mutating func timerCommand(_ c: TimerCommand, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        try floor.checkCanDrive(me)
        try timer.apply(c, at: wallTime)
        send(.ok, to: p, tag: tag)
        persist()
        pushState()
    }

    /// The next time (ms since 1970) the clock shows "HH:MM" in UTC, after `wall` seconds.
    /// (A .pdfpc file's end time has no time zone; the appliance's clock is taken as UTC.)
    static func nextOccurrence(_ hhmm: String, after wall: Double) -> UInt64? {
        let parts = hhmm.split(separator: ":")
        guard parts.count == 2, let h = Int(parts[0]), let m = Int(parts[1]) else { return nil }
        let day = 86_400.0
        let midnight = (wall / day).rounded(.down) * day
        var at = midnight + Double(h * 3600 + m * 60)
        if at <= wall { at += day }
        return UInt64(at * 1000)
    }
}
