import Foundation
import LecternModel
import LecternTestSupport
import LecternVideo
import XCTest

/// A test clip made with the ffmpeg CLI (libx264). Every frame shows its own number:
/// eight blocks (4 × 2, each 3/16 of the width and 1/4 of the height, in the middle of the
/// picture) black for 0 and white for 1, bit 0 top-left, on a blue ground (#1e3cc8) that
/// reaches every edge, with a red square (1/8 × 1/8) in the top-left corner to tell the
/// orientation.
struct ClipSpec: Hashable {
    var width = 640, height = 480
    var fps = 25
    var seconds = 2.0
    var profile = "high"
    var bframes = 3
    /// mp4, mkv, ts (MPEG-TS) or h264 (raw Annex B).
    var container = "mp4"
    var sar: String?
    /// The `rotate` tag written into an MP4 by stream copy.
    var rotateTag: Int?
    var gop = 12
    var faststart = false
    /// libx264, or another FFmpeg encoder (then profile and B-frames are left to it).
    var encoder = "libx264"

    var frameCount: Int { Int((seconds * Double(fps)).rounded()) }
    var name: String {
        "\(width)x\(height)-\(fps)-\(profile)-bf\(bframes)-g\(gop)-\(Int(seconds * 1000))ms"
            + (sar.map { "-sar\($0.replacingOccurrences(of: "/", with: "_"))" } ?? "")
            + (rotateTag.map { "-rot\($0)" } ?? "") + (faststart ? "-fs" : "")
            + (encoder == "libx264" ? "" : "-" + encoder) + "." + container
    }
}

enum Clips {
    static let blue = RGB(0x1E, 0x3C, 0xC8)
    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: [ClipSpec: String] = [:]   // only with `lock` held
    static let dir = Fixtures.tempDir("video")

    /// The clip's path, made once per test run. Fails loudly when ffmpeg is missing.
    static func make(_ spec: ClipSpec) throws -> String {
        lock.lock(); defer { lock.unlock() }
        if let p = made[spec] { return p }
        let path = dir + "/" + spec.name
        var filters = ["drawbox=x=0:y=0:w=iw/8:h=ih/8:c=red:t=fill"]
        for b in 0..<8 {
            let c = b % 4, r = b / 4
            let box = "x=iw/8+\(c)*3*iw/16:y=ih/4+\(r)*ih/4:w=3*iw/16:h=ih/4"
            filters.append("drawbox=\(box):c=black:t=fill")
            filters.append("drawbox=\(box):c=white:t=fill:enable='mod(floor(n/\(1 << b)),2)'")
        }
        if let sar = spec.sar { filters.append("setsar=\(sar)") }
        let encoded = spec.rotateTag == nil ? path : path + ".unrotated.mp4"
        var args = [
            "-y", "-v", "error", "-f", "lavfi",
            "-i", "color=c=0x1E3CC8:s=\(spec.width)x\(spec.height):r=\(spec.fps):d=\(spec.seconds)",
            "-vf", filters.joined(separator: ","),
            "-pix_fmt", "yuv420p", "-g", "\(spec.gop)",
        ]
        if spec.encoder == "libx264" {
            args += [
                "-c:v", "libx264", "-preset", "veryfast", "-profile:v", spec.profile,
                "-keyint_min", "\(spec.gop)", "-sc_threshold", "0",
            ]
            if spec.profile != "baseline" { args += ["-bf", "\(spec.bframes)"] }
        } else {
            args += ["-c:v", spec.encoder, "-q:v", "3"]
        }
        if spec.faststart { args += ["-movflags", "+faststart"] }
        if spec.container == "h264" { args += ["-f", "h264"] }
        try ffmpeg(args + [encoded])
        if let rot = spec.rotateTag {
            try ffmpeg(["-y", "-v", "error", "-i", encoded, "-c", "copy", "-metadata:s:v:0", "rotate=\(rot)", path])
        }
        made[spec] = path
        return path
    }

    static func ffmpeg(_ args: [String]) throws {
        let r = try Fixtures.run("ffmpeg", args)
        guard r.status == 0 else { throw Fixtures.ToolError(description: "ffmpeg \(args.joined(separator: " ")) failed: \(r.err)") }
    }

    /// A copy of `path` cut to `fraction` of its bytes.
    static func truncated(_ path: String, fraction: Double) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let out = dir + "/cut\(Int(fraction * 100))-" + (path as NSString).lastPathComponent
        try data.prefix(Int(Double(data.count) * fraction)).write(to: URL(fileURLWithPath: out))
        return out
    }

    /// A copy of `path` with `count` bytes inverted from `fraction` of the way in.
    static func flipped(_ path: String, at fraction: Double, count: Int) throws -> String {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        let start = Int(Double(data.count) * fraction)
        for i in start..<min(data.count, start + count) { data[i] ^= 0xFF }
        let out = dir + "/flip\(Int(fraction * 100))-" + (path as NSString).lastPathComponent
        try data.write(to: URL(fileURLWithPath: out))
        return out
    }
}

/// Reads what the test clips show, from an output frame.
enum Reader {
    /// Where the source's normalised point (u, v) is shown inside `rect` once turned
    /// `rotation` degrees clockwise.
    static func point(_ u: Double, _ v: Double, in rect: PixelRect, rotation: Int) -> (x: Int, y: Int) {
        let (du, dv): (Double, Double)
        switch ((rotation % 360) + 360) % 360 {
        case 90: (du, dv) = (1 - v, u)
        case 180: (du, dv) = (1 - u, 1 - v)
        case 270: (du, dv) = (v, 1 - u)
        default: (du, dv) = (u, v)
        }
        return (
            rect.x + min(rect.width - 1, Int(du * Double(rect.width))),
            rect.y + min(rect.height - 1, Int(dv * Double(rect.height)))
        )
    }

    static func luma(_ c: RGB) -> Double { 0.299 * Double(c.r) + 0.587 * Double(c.g) + 0.114 * Double(c.b) }

    /// The frame number the picture in `rect` shows; nil when the blocks are not clean
    /// black or white (not a test picture, or a mangled one).
    static func number(_ frame: Frame, rect: PixelRect, rotation: Int = 0) -> Int? {
        var n = 0
        for b in 0..<8 {
            let c = Double(b % 4), r = Double(b / 4)
            let p = point(1.0 / 8 + (c + 0.5) * 3 / 16, 0.25 + (r + 0.5) / 4, in: rect, rotation: rotation)
            let px = frame.pixel(x: p.x, y: p.y)
            let spread = Int(max(px.r, px.g, px.b)) - Int(min(px.r, px.g, px.b))
            guard spread < 40 else { return nil }
            let y = luma(px)
            if y > 180 { n |= 1 << b } else if y > 70 { return nil }
        }
        return n
    }

    /// True when the red orientation square is where the source's top-left corner goes.
    static func redCornerIsTopLeftOfSource(_ frame: Frame, rect: PixelRect, rotation: Int) -> Bool {
        let p = point(1.0 / 16, 1.0 / 16, in: rect, rotation: rotation)
        let c = frame.pixel(x: p.x, y: p.y)
        return c.r > 150 && c.g < 90 && c.b < 110
    }

    static func isBlueish(_ c: RGB) -> Bool {
        abs(Int(c.r) - 0x1E) < 30 && abs(Int(c.g) - 0x3C) < 30 && abs(Int(c.b) - 0xC8) < 30
    }
}
