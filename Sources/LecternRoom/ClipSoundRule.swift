/// Which clip has the sound (docs/protocol.md §23.1): the wall has one sound output and
/// clips may play in several panes at once. The clip whose latest clip-play or clip-resume
/// came last has it; every other clip plays muted. A pause keeps it (the holder is silent
/// while paused); when the holder ends or is stopped, the sound goes to the clip whose
/// latest play or resume is now the newest. Data only: `RoomCore+Clips` drives it.
struct ClipSoundRule: Equatable, Sendable {
    /// The order of each clip's latest play or resume, by play serial.
    private var stamps: [Int: Int] = [:]
    private var counter = 0
    /// The holder the shell was last told of (`RoomEffect.clipSound`).
    private(set) var announced: Int?

    /// Clip `serial` started playing, or was resumed: it takes the sound.
    mutating func took(_ serial: Int) {
        counter += 1
        stamps[serial] = counter
    }

    /// Clip `serial` ended, was stopped or dropped: it has no claim any more.
    mutating func gone(_ serial: Int) { stamps[serial] = nil }

    /// The clip that has the sound now (nil: no clip plays).
    var holder: Int? { stamps.max { $0.value < $1.value }?.key }

    /// The holder, when it differs from the one last announced (then it is announced).
    mutating func change() -> Int?? {
        let h = holder
        guard h != announced else { return nil }
        announced = h
        return .some(h)
    }
}
