/// The room's clips as one value (RoomCore+Clips.swift; each clip itself is in the screen
/// queue of the pane it plays in): the play serials, one sequence over every pane, which
/// clip has the sound (§23.1), and when a playing clip's position was last saved.
struct RoomClips: Equatable, Sendable {
    private(set) var lastSerial = 0
    var sound = ClipSoundRule()
    var save = ClipSaveThrottle()

    /// A new clip's play serial.
    mutating func newSerial() -> Int {
        lastSerial += 1
        return lastSerial
    }
}
