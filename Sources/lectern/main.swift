import ArgumentParser
import Foundation

struct Lectern: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lectern",
        abstract: "Lectern's command-line client: present on a meeting-room projector.",
        subcommands: [RenderCommand.self, DemoDeckCommand.self])
}

do {
    var command = try Lectern.parseAsRoot()
    try command.run()
} catch let e as CLIError {
    FileHandle.standardError.write(Data("lectern: \(e.description)\n".utf8))
    exit(e.exitCode)
} catch {
    Lectern.exit(withError: error)
}
