import ArgumentParser
import Foundation
import LecternClient
import LecternCore
import LecternProtocol

/// `lectern share FILE|-`: streams H.264 (Annex B) as a live share in real time
/// (docs/protocol.md §29), for scripts, kiosks and tests:
/// `ffmpeg -f x11grab -i :0 -c:v libx264 -tune zerolatency -f h264 - | lectern share -`.
struct ShareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Share a live H.264 stream (Annex B) on the wall: a file, or - for standard input.",
        discussion: """
            Each picture is sent when its time comes (--fps), so a file plays in real time; a live \
            pipe is sent as it arrives. In an open room the share takes the floor (--beside: a pane \
            of its own beside what the wall shows); in a moderated room it waits for the moderator's \
            approval unless you have the floor. It ends at the end of the input (--loop: a file \
            starts again), or when the moderator ends it (exit 28).
            """)
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "An H.264 Annex B file (ffmpeg ... -f h264), or - for standard input") var input: String
    @Option(help: "Pictures a second in the stream (raw H.264 carries no timing)") var fps: Int = 30
    @Option(help: "The stream's bitrate in kbit/s, as announced to the appliance") var kbps: Int = 8000
    @Flag(help: "A pane of its own beside what the wall shows") var beside = false
    @Flag(help: "Start a file again at its end") var loop = false
    @Flag(help: "Print nothing but errors") var quiet = false

    func run() throws {
        guard (1...60).contains(fps) else { throw ValidationError("--fps is 1 to 60") }
        var reader = try ShareInput(path: input, loop: loop)
        guard let first = try reader.next() else {
            throw CLIError(code: "input", message: "\(input) holds no H.264 picture (Annex B: ffmpeg ... -f h264)")
        }
        guard let size = AnnexB.pictureSize(first.bytes) else {
            throw CLIError(code: "input", message: "\(input) has no sequence parameter set (SPS) before its first picture")
        }
        let config = ShareConfig(
            codec: .h264, source: .file, placement: beside ? .beside : .driven, width: UInt16(clamping: size.width),
            height: UInt16(clamping: size.height), frameRate: UInt16(fps), bitrate: UInt32(clamping: kbps * 1000))
        try withConnection(connection) { c in
            if !beside { try takeFloorIfOpen(c, role: connection.role) }
            let ready = try c.beginShare(config)
            say(ready.status == .live ? "live in pane \(ready.pane ?? 0) (\(size.width)×\(size.height), \(fps) fps)" : "waiting for the moderator to approve the share…")
            var unit: AnnexBSplitter.Unit? = first
            var sequence: UInt32 = 0
            var sentFrames = 0, unsent = 0
            var lastAck: ShareAck?
            let start = MonotonicClock.now(), period = 1 / Double(fps)
            while let u = unit {
                for m in c.shareEvents() {
                    switch m {
                    case .ended(let e): throw LecternConnection.ClientError.server(e)
                    case .ready(let r) where r.status == .live: say("approved: live in pane \(r.pane ?? 0)")
                    case .ack(let a): lastAck = a
                    default: break   // a key frame asked for: a stream's next one comes; advice: it is encoded already
                    }
                }
                let due = start + Double(sentFrames + unsent) * period
                let wait = due - MonotonicClock.now()
                if wait > 0 { Thread.sleep(forTimeInterval: wait) }
                let f = ShareFrame(sequence: sequence, timestamp: UInt64(MonotonicClock.now() * 1_000_000), key: u.key, data: u.bytes)
                if c.sendShareFrame(f, wait: period) {
                    sequence &+= 1
                    sentFrames += 1
                } else {
                    unsent += 1
                }
                guard c.isOpen else { throw LecternConnection.ClientError.closed }
                unit = try reader.next()
            }
            _ = try c.request(.share(.control(.stop)))
            let a = lastAck.map { ", \($0.decoded) decoded, \($0.dropped) dropped by the appliance" } ?? ""
            say("shared \(sentFrames) pictures\(unsent > 0 ? ", \(unsent) not sent (the network was behind)" : "")\(a)")
        }
    }

    /// A line at once, also into a pipe (a script waits for "live").
    private func say(_ s: String) {
        guard !quiet else { return }
        print(s)
        fflush(stdout)
    }
}

/// The access units of a file or of standard input, read a piece at a time.
struct ShareInput {
    let path: String
    let loop: Bool
    private var handle: FileHandle
    private var splitter = AnnexBSplitter()
    private var ready: [AnnexBSplitter.Unit] = []

    init(path: String, loop: Bool) throws {
        self.path = path
        self.loop = loop && path != "-"
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            guard let h = FileHandle(forReadingAtPath: path) else { throw CLIError(code: "input", message: "can't read \(path)") }
            handle = h
        }
    }

    mutating func next() throws -> AnnexBSplitter.Unit? {
        while ready.isEmpty {
            let data = handle.readData(ofLength: 64 << 10)
            if data.isEmpty {
                if let last = splitter.finish() { ready.append(last) }
                if ready.isEmpty, loop, let h = FileHandle(forReadingAtPath: path) {
                    handle = h
                    continue
                }
                break
            }
            ready += splitter.feed([UInt8](data))
        }
        return ready.isEmpty ? nil : ready.removeFirst()
    }
}
