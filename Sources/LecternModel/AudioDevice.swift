/// Where clips' sound goes (the config's `audio_device`): the first HDMI sound card, none,
/// or an ALSA PCM opened as named (`"default"`, `"hdmi:CARD=vc4hdmi1,DEV=0"`, …).
public enum AudioDevice: Equatable, Sendable, CustomStringConvertible {
    case auto
    case off
    case pcm(String)

    /// `"auto"`, `"off"`, or any other name as a PCM (the config checks what a name may be).
    public init(_ setting: String) {
        switch setting {
        case "auto": self = .auto
        case "off": self = .off
        default: self = .pcm(setting)
        }
    }

    /// As the config file writes it.
    public var description: String {
        switch self {
        case .auto: "auto"
        case .off: "off"
        case .pcm(let name): name
        }
    }
}
