import ArgumentParser
import LecternProtocol

/// `lectern transitions off|fade [MS]`: the room's cross-fade between pages that carry no
/// `/Trans` of their own (control signal 0x10, docs/protocol.md §21). The deck's own
/// transitions play either way.
struct TransitionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transitions", abstract: "Cross-fade between pages without their own transition (fade [MS], default 300), or not (off).")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "off or fade") var choice: String
    @Argument(help: "the fade's length in milliseconds (50 to 2000)") var milliseconds: UInt32 = 300

    func run() throws {
        switch choice {
        case "off": try SignalCommand.send(connection, .transitions(fadeMs: 0))
        case "fade": try SignalCommand.send(connection, .transitions(fadeMs: milliseconds))
        default: throw ValidationError("say off or fade, not '\(choice)'")
        }
    }
}
