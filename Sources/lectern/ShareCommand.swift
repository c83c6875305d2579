import ArgumentParser
import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol

/// `lectern share FILE|-`: streams a video as a live share in real time (docs/protocol.md
/// §29), for scripts, kiosks and tests: raw H.264 (Annex B, paced by `--fps`), or any
/// container FFmpeg reads (MP4, Matroska/WebM, MPEG-TS: H.264, VP8 or VP9, paced by its
/// timestamps). `ffmpeg -f x11grab -i :0 -c:v libx264 -tune zerolatency -f h264 - | lectern share -`.
struct ShareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Share a live video on the wall: raw H.264 (Annex B) or a container FFmpeg reads (MP4, Matroska); a file, or - for standard input.",
        discussion: """
            Each picture is sent when its time comes (a container's timestamps; raw H.264: --fps), \
            so a file plays in real time; a live pipe is sent as it arrives. In an open room the share \
            takes the floor (--beside: a pane of its own beside what the wall shows); in a moderated \
            room it waits for the moderator's approval unless you have the floor. It ends at the end \
            of the input (--loop: a file starts again), or when the moderator ends it (exit 28).
            """)
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "A video file: raw H.264 (ffmpeg ... -f h264) or MP4, Matroska/WebM, MPEG-TS (H.264, VP8, VP9); - for standard input")
    var input: String
    @Option(help: "Pictures a second of raw H.264 (it carries no timing; a container's own rate is used)") var fps: Int?
    @Option(help: "The stream's bitrate in kbit/s, as announced to the appliance") var kbps: Int = 8000
    @Flag(help: "A pane of its own beside what the wall shows") var beside = false
    @Flag(help: "Start a file again at its end") var loop = false
    @Flag(help: "Print nothing but errors") var quiet = false

    func run() throws {
        if let fps { guard (1...60).contains(fps) else { throw ValidationError("--fps is 1 to 60") } }
        var source = try ShareSourceFile(path: input, loop: loop, fps: fps)
        guard let first = try source.next() else {
            throw CLIError(code: "input", message: "\(input) holds no picture (raw H.264 Annex B, or a container with H.264, VP8 or VP9)")
        }
        let rate = source.frameRate
        let config = ShareConfig(
            codec: source.codec, source: .file, placement: beside ? .beside : .driven, width: UInt16(clamping: source.width),
            height: UInt16(clamping: source.height), frameRate: UInt16(rate), bitrate: UInt32(clamping: kbps * 1000))
        try withConnection(connection) { c in
            if !beside { try takeFloorIfOpen(c, role: connection.role) }
            let ready = try c.beginShare(config)
            say(ready.status == .live ? "live in pane \(ready.pane ?? 0) (\(source.width)×\(source.height), \(rate) fps)" : "waiting for the moderator to approve the share…")
            var picture: ShareSourceFile.Picture? = first
            var sequence: UInt32 = 0, soundSequence: UInt32 = 0
            var sentFrames = 0, unsent = 0, sentSound = 0
            var lastAck: ShareAck?
            let start = MonotonicClock.now(), period = 1 / Double(rate)
            while let p = picture {
                for m in c.shareEvents() {
                    switch m {
                    case .ended(let e): throw LecternConnection.ClientError.server(e)
                    case .ready(let r) where r.status == .live: say("approved: live in pane \(r.pane ?? 0)")
                    case .ack(let a): lastAck = a
                    default: break   // a key frame asked for: a stream's next one comes; advice: it is encoded already
                    }
                }
                let due = start + p.time
                let wait = due - MonotonicClock.now()
                if wait > 0 { Thread.sleep(forTimeInterval: wait) }
                // Capture times: when each is due, pictures and sound alike (the appliance keeps them together).
                let stamp = UInt64(max(0, due) * 1_000_000)
                if p.sound, let channels = source.soundChannels {
                    if p.bytes.count <= ShareAudio.maxBytes {
                        _ = c.send(.share(.audio(ShareAudio(channels: UInt8(channels), sequence: soundSequence, timestamp: stamp, data: p.bytes))))
                        soundSequence &+= 1
                        sentSound += 1
                    }
                    picture = try source.next()
                    continue
                }
                let f = ShareFrame(sequence: sequence, timestamp: stamp, key: p.key, data: p.bytes)
                if c.sendShareFrame(f, wait: period) {
                    sequence &+= 1
                    sentFrames += 1
                } else {
                    unsent += 1
                }
                guard c.isOpen else { throw LecternConnection.ClientError.closed }
                picture = try source.next()
            }
            _ = try c.request(.share(.control(.stop)))
            let a = lastAck.map { ", \($0.decoded) decoded, \($0.dropped) dropped by the appliance" } ?? ""
            let sound = sentSound > 0 ? " and \(sentSound) pieces of sound" : ""
            say("shared \(sentFrames) pictures\(sound)\(unsent > 0 ? ", \(unsent) not sent (the network was behind)" : "")\(a)")
        }
    }

    /// A line at once, also into a pipe (a script waits for "live").
    private func say(_ s: String) {
        guard !quiet else { return }
        print(s)
        fflush(nil)
    }
}

/// The access units of a file or of standard input, read a piece at a time.
struct ShareInput {
    let path: String
    let loop: Bool
    private var handle: FileHandle
    private var splitter = AnnexBSplitter()
    private var ready: [AnnexBSplitter.Unit] = []

    /// `prefix`: bytes of standard input read already (to tell raw H.264 from a container).
    init(path: String, loop: Bool, prefix: [UInt8] = []) throws {
        self.path = path
        self.loop = loop && path != "-"
        ready = splitter.feed(prefix)
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
