import ArgumentParser
import Foundation
import LecternPipeline

struct Lectern: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lectern",
        abstract: "Lectern's command-line client: present on a meeting-room projector.",
        discussion: """
            Exit status: 0 on success; 1 for a problem on this side (arguments, files, connection); \
            10 + the high byte of the server's error code otherwise (10 framing, 11 passcode and \
            registration, 12 floor, 13 content and screen, 14 uploads, 15 clips, 16 server, 17 presenter console, \
            18 pointer and ink, 19 audience, 20 transitions, 23 sound, 25 the wall's layout, 28 live sharing).
            """,
        subcommands: [
            StatusCommand.self, UploadCommand.self, PresentCommand.self, NextCommand.self, PrevCommand.self,
            GotoCommand.self, BlankCommand.self, UnblankCommand.self, ClearCommand.self, FloorCommand.self,
            KickCommand.self, PlayCommand.self, PauseCommand.self, ResumeCommand.self, SeekCommand.self,
            StopCommand.self, ScreenshotCommand.self, PreviewCommand.self, WatchCommand.self, RenderCommand.self,
            HashPasscodeCommand.self, DemoDeckCommand.self, NotesCommand.self, NotesFileCommand.self, NotesLayoutCommand.self,
            TimerCLICommand.self,
            VolumeCommand.self, RecordCommand.self,
            FollowCommand.self, PollCommand.self, AskCommand.self, QuestionsCommand.self, LockCommand.self, UnlockCommand.self,
            PointCommand.self, DrawCommand.self, InkCommand.self, WhiteboardCommand.self, TransitionsCommand.self,
            LayoutCommand.self, PaneCommand.self, WallAddCommand.self,
            EndMeetingCommand.self, ShareCommand.self,
        ])

    /// The connection options may come before the subcommand too (`lectern --host H status`,
    /// as with `ssh` or `docker -H`): the subcommand's own `ConnectionOptions` group then takes
    /// these values (swift-argument-parser hands an option group parsed by a parent command
    /// to a child's group of the same type).
    @OptionGroup(title: "Connection (before or after the command)") var connection: ConnectionOptions
}

RenderCommand.runWorkerIfAsked(CommandLine.arguments)
DeckProbe.runIfAsked(CommandLine.arguments)
do {
    var command = try Lectern.parseAsRoot()
    try command.run()
} catch let e as CLIError {
    FileHandle.standardError.write(Data("lectern: \(e.description)\n".utf8))
    exit(e.exitCode)
} catch {
    // README: 0 on success, 1 for a problem on this side — usage mistakes included (the
    // parser's own code would be 64); asking for help is a success.
    let code = Lectern.exitCode(for: error)
    if code == .success { Lectern.exit(withError: error) }
    FileHandle.standardError.write(Data((Lectern.fullMessage(for: error) + "\n").utf8))
    exit(1)
}
