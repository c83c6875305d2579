import ArgumentParser
import LecternClient
import LecternProtocol

// The meeting from the command line (docs/protocol.md §27).

struct EndMeetingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "end-meeting",
        abstract:
            "End the meeting (with --moderator): everyone is let go, the wall goes idle, and the polls, questions, record, ink, whiteboards, typed notes and (as the admin set) uploads are deleted.",
        discussion: "In a room without a moderator passcode, whoever drives the wall may end it. Exit status 0 once the appliance has said it ends.")
    @OptionGroup var connection: ConnectionOptions
    func run() throws {
        try withConnection(connection) { c in _ = try c.request(.audienceSet(.endMeeting)) }
        print("The meeting ended.")
    }
}
