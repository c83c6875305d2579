import Foundation
import LecternModel
import LecternProtocol
import LecternVideo

/// What `lectern share` sends: the pictures of raw H.264 (Annex B: `ShareInput`, timed by
/// `--fps`) or of a container FFmpeg reads (`ShareStreamReader`, timed by its timestamps),
/// each with its time from the start of the share (a `--loop` goes on counting).
struct ShareSourceFile {
    struct Picture {
        var bytes: [UInt8]
        var key: Bool
        /// Seconds from the start of the share when it is due.
        var time: Double
        /// An Opus packet of the sound (`key` unused), not a picture.
        var sound = false
    }

    let path: String
    let loop: Bool
    let codec: ShareCodec
    let width: Int
    let height: Int
    /// Pictures a second announced (and the pace of raw H.264).
    let frameRate: Int
    /// Channels of the Opus sound a container has (nil: none; raw H.264 has none).
    var soundChannels: Int? { container?.soundChannels }
    private var raw: ShareInput?
    private var container: ShareStreamReader?
    private var first: Picture?
    private var count = 0
    /// Seconds of the rounds a `--loop` played already, and the last picture's time.
    private var offset = 0.0
    private var last = 0.0

    init(path: String, loop: Bool, fps: Int?) throws {
        self.path = path
        self.loop = loop && path != "-"
        let prefix = try Self.firstBytes(path)
        if Self.isAnnexB(prefix) {
            var r = try ShareInput(path: path, loop: loop, prefix: path == "-" ? prefix : [])
            guard let u = try r.next() else { throw CLIError(code: "input", message: "\(path) holds no H.264 picture") }
            guard let size = AnnexB.pictureSize(u.bytes) else {
                throw CLIError(code: "input", message: "\(path) has no sequence parameter set (SPS) before its first picture")
            }
            (codec, width, height, frameRate) = (.h264, size.width, size.height, fps ?? 30)
            raw = r
            first = Picture(bytes: u.bytes, key: u.key, time: 0)
        } else {
            let c: ShareStreamReader
            do { c = try ShareStreamReader(path: path, prefix: path == "-" ? prefix : []) } catch {
                throw CLIError(code: "input", message: "\(error)")
            }
            switch c.codec {
            case .h264: codec = .h264
            case .vp8: codec = .vp8
            case .vp9: codec = .vp9
            }
            (width, height) = (c.width, c.height)
            frameRate = fps ?? min(60, max(1, Int((c.frameRate ?? 30).rounded())))
            container = c
        }
    }

    /// The next picture, or nil at the end (after the last round of a `--loop`).
    mutating func next() throws -> Picture? {
        if let f = first {
            first = nil
            count = 1
            return f
        }
        if var r = raw {
            defer { raw = r }
            guard let u = try r.next() else { return nil }
            count += 1
            return Picture(bytes: u.bytes, key: u.key, time: Double(count - 1) / Double(frameRate))
        }
        guard let c = container else { return nil }
        switch try c.nextItem() {
        case .picture(let p)?:
            count += 1
            last = offset + (p.time ?? Double(count - 1) / Double(frameRate))
            return Picture(bytes: p.bytes, key: p.key, time: last)
        case .sound(let s)?:
            return Picture(bytes: s.bytes, key: false, time: offset + (s.time ?? last), sound: true)
        case nil: break
        }
        guard loop, count > 0 else { return nil }
        offset = last + 1 / Double(frameRate)
        container = try ShareStreamReader(path: path)
        count = 0
        return try next()
    }

    /// Whether `bytes` start with an Annex B start code (raw H.264).
    static func isAnnexB(_ b: [UInt8]) -> Bool {
        (b.count >= 4 && b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == 1) || (b.count >= 3 && b[0] == 0 && b[1] == 0 && b[2] == 1)
    }

    /// The first 4 bytes of the file, or of standard input (read: handed on as the prefix).
    static func firstBytes(_ path: String) throws -> [UInt8] {
        if path == "-" {
            var b = [UInt8](repeating: 0, count: 4)
            var n = 0
            while n < 4 {
                let r = b.withUnsafeMutableBytes { read(0, $0.baseAddress! + n, 4 - n) }
                if r < 0 && errno == EINTR { continue }
                if r <= 0 { break }
                n += r
            }
            return Array(b.prefix(n))
        }
        guard let h = FileHandle(forReadingAtPath: path) else { throw CLIError(code: "input", message: "can't read \(path)") }
        defer { try? h.close() }
        return [UInt8](h.readData(ofLength: 4))
    }
}
