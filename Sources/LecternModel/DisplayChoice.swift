/// Which output to open (the config's `display.output`, `lecternd --display`): `auto` takes
/// the KMS output when a usable `/dev/dri/card*` has a connected display, and the virtual
/// display otherwise.
public enum DisplayChoice: String, CaseIterable, Sendable {
    case auto, kms, virtual
}
