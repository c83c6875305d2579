import ArgumentParser
import Foundation
import LecternClient

struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Download the meeting record: one PDF of everything shown in this meeting (the moderator's; presenters' where the admin allows).")
    @OptionGroup var connection: ConnectionOptions
    @Option(name: .shortAndLong, help: "Where to write the PDF.") var output = "meeting.pdf"
    func run() throws {
        let isTerminal = isatty(STDERR_FILENO) != 0
        let (pdf, pages) = try withConnection(connection) { c in
            try c.meetingRecord { done, total in
                guard isTerminal else { return }
                FileHandle.standardError.write(Data("\rdrawing the record: page \(done) of \(total)".utf8))
            }
        }
        if isTerminal { FileHandle.standardError.write(Data("\n".utf8)) }
        try pdf.write(to: URL(fileURLWithPath: output), options: .atomic)
        print("\(output): \(pages) pages, \(pdf.count) bytes")
    }
}
