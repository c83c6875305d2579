import LecternModel

public enum DisplaySelection {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// What `auto` resolves to on this machine, with the reason (for the log).
    public static func resolve(_ choice: DisplayChoice, driDirectory: String = "/dev/dri") -> (DisplayChoice, String) {
        switch choice {
        case .virtual: return (.virtual, "virtual display requested")
        case .kms: return (.kms, "KMS requested")
        case .auto:
            let cards = CardProbe.cards(in: driDirectory)
            if let card = cards.first(where: { $0.connectors.contains(where: \.connected) }) {
                return (.kms, "\(card.path) (\(card.driver)) has a connected display")
            }
            // A KMS card with connectors but nothing plugged in: drive it and wait for a display.
            if let card = cards.first(where: { !$0.connectors.isEmpty }) {
                return (.kms, "\(card.path) (\(card.driver)) has no display connected yet: waiting for one")
            }
            return (.virtual, "no usable \(driDirectory)/card*: using the virtual display")
        }
    }

    /// Opens the output for `choice`.
    public static func open(
        _ choice: DisplayChoice, mode: RequestedMode?, card: String? = nil,
        connector: String? = nil
    ) throws -> Output {
        switch resolve(choice).0 {
        case .virtual, .auto:
            return VirtualDisplay(mode: mode?.displayMode ?? .fullHD)
        case .kms:
            return try KMSOutput(options: .init(card: card, connector: connector, mode: mode))
        }
    }
}
