import Foundation
import LecternModel

/// Which ALSA device clips' sound goes to, from the config's `audio_device`:
/// `"auto"` (the default) picks the first card whose id or name says HDMI — on a
/// Raspberry Pi the vc4-hdmi card of the first HDMI port — through ALSA's plug layer
/// (`plughw:CARD=<id>,DEV=0`); `"off"` is silent; anything else is an ALSA PCM name used
/// as is (`"default"`, `"hdmi:CARD=vc4hdmi1,DEV=0"`, `"plughw:1,0"`, …). No HDMI card
/// (or none at all) means silent: one log line at start, never an error for a presenter.
public enum SoundDevice {
    /// The PCM name to open, or nil for silent, and a line for the log saying which.
    public static func resolve(_ setting: AudioDevice, cards: String? = try? String(contentsOfFile: "/proc/asound/cards", encoding: .utf8))
        -> (pcm: String?, log: String)
    {
        switch setting {
        case .off: return (nil, "sound: off (audio_device = \"off\"), clips play silent")
        case .pcm(let name): return (name, "sound: clips play on ALSA device \(name)")
        case .auto: break
        }
        for (id, name) in parseCards(cards ?? "") where (id + " " + name).lowercased().contains("hdmi") {
            return ("plughw:CARD=\(id),DEV=0", "sound: clips play on HDMI card \(id) (\(name))")
        }
        return (nil, "sound: no HDMI sound card found (audio_device = \"auto\"), clips play silent")
    }

    /// `/proc/asound/cards` lines like ` 0 [vc4hdmi0       ]: vc4-hdmi - vc4-hdmi-0`: (id, long name).
    static func parseCards(_ text: String) -> [(id: String, name: String)] {
        text.split(separator: "\n").compactMap { line in
            guard let open = line.firstIndex(of: "["), let close = line.firstIndex(of: "]"), open < close,
                line[..<open].trimmingCharacters(in: .whitespaces).allSatisfy(\.isNumber)
            else { return nil }
            let id = line[line.index(after: open)..<close].trimmingCharacters(in: .whitespaces)
            let name = line[line.index(after: close)...].drop { $0 == ":" || $0 == " " }
            return id.isEmpty ? nil : (id, String(name))
        }
    }
}
