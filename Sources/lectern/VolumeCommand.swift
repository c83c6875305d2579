import ArgumentParser
import LecternProtocol

/// `lectern volume 0..100|mute|unmute`: the room's volume for clips' sound (§23).
struct VolumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "volume", abstract: "Set the volume of clips' sound: 0 to 100, mute or unmute.",
        discussion: "Prints the volume as the room now has it. Needs the floor, like the other clip commands.")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "0 to 100, mute, or unmute") var setting: String

    static func parse(_ s: String) throws -> SoundSetting {
        switch s.lowercased() {
        case "mute": return SoundSetting(muted: true)
        case "unmute": return SoundSetting(muted: false)
        default:
            guard let v = Int(s), (0...100).contains(v) else {
                throw ValidationError("the volume is a number from 0 to 100, mute or unmute, not '\(s)'")
            }
            return SoundSetting(level: UInt8(v))
        }
    }

    func run() throws {
        let s = try Self.parse(setting)
        try withConnection(connection) { c in
            _ = try c.request(.soundSet(s))
            let sound = try c.state().sound
            print("volume \(sound.level)\(sound.muted ? " (muted)" : "")\(sound.device == nil ? " — no sound device: clips play silent" : "")")
        }
    }
}
