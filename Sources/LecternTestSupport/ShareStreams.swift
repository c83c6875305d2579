import Foundation

/// Streams for live-sharing tests (docs/protocol.md §29), made with the ffmpeg CLI.
extension Fixtures {
    /// Raw H.264 (Annex B, as `lectern share` and share-frame carry it) of `frames` pictures
    /// at `fps`: one colour, or FFmpeg's moving test pattern (`color` nil). Baseline-free
    /// settings a live encoder uses: no B-frames, a key frame every `keyEvery` pictures.
    public static func annexB(
        in dir: String, width: Int = 640, height: Int = 480, frames: Int = 50, fps: Int = 25, color: String? = "red",
        keyEvery: Int = 25, name: String = "share.h264"
    ) throws -> String {
        let path = dir + "/" + name
        let source = color.map { "color=c=\($0):s=\(width)x\(height):r=\(fps)" } ?? "testsrc2=s=\(width)x\(height):r=\(fps)"
        let r = try run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", source, "-frames:v", "\(frames)",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", "-bf", "0", "-g", "\(keyEvery)", "-tune", "zerolatency",
                "-f", "h264", path,
            ])
        guard r.status == 0 else { throw ToolError(description: "ffmpeg made no H.264 stream: \(r.err)") }
        return path
    }

    /// A VP8 stream's frames as a browser's encoder hands them out, made by ffmpeg into IVF
    /// and cut at its frame headers.
    public static func vp8Frames(in dir: String, width: Int = 640, height: Int = 480, frames: Int = 30, color: String = "blue") throws -> [[UInt8]] {
        let path = dir + "/share.ivf"
        let r = try run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=\(color):s=\(width)x\(height):r=30", "-frames:v", "\(frames)",
                "-c:v", "libvpx", "-deadline", "realtime", "-g", "30", "-f", "ivf", path,
            ])
        guard r.status == 0 else { throw ToolError(description: "ffmpeg made no VP8 stream: \(r.err)") }
        let b = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var out: [[UInt8]] = []
        var i = Int(b[6]) | Int(b[7]) << 8   // the IVF header's length
        while i + 12 <= b.count {
            let n = Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24
            i += 12
            guard i + n <= b.count else { break }
            out.append(Array(b[i..<(i + n)]))
            i += n
        }
        return out
    }

    /// An SPS announcing a `mbWidth`×`mbHeight` macroblock picture (16384×16384 pixels with
    /// 1024×1024), with a PPS and the start of an IDR slice: what a hostile sender would send.
    public static func hugeSPSKeyFrame(mbWidth: Int = 1024, mbHeight: Int = 1024) -> [UInt8] {
        var w = BitWriter()
        w.bits(66, 8); w.bits(0, 8); w.bits(40, 8)   // baseline, constraints, level 4.0
        w.ue(0)   // sps id
        w.ue(0)   // log2_max_frame_num_minus4
        w.ue(2)   // pic_order_cnt_type
        w.ue(1)   // max_num_ref_frames
        w.bits(0, 1)
        w.ue(mbWidth - 1); w.ue(mbHeight - 1)
        w.bits(1, 1); w.bits(1, 1); w.bits(0, 1); w.bits(0, 1)   // frame_mbs_only, direct_8x8, no cropping, no VUI
        w.trailing()
        var pps = BitWriter()
        pps.ue(0); pps.ue(0); pps.bits(0, 1); pps.bits(0, 1); pps.ue(0); pps.ue(0); pps.ue(0)
        pps.bits(0, 1); pps.bits(0, 2); pps.se(0); pps.se(0); pps.se(0); pps.bits(0, 1); pps.bits(0, 1); pps.bits(0, 1)
        pps.trailing()
        let slice: [UInt8] = [0x88, 0x84, 0x00, 0x33, 0xFF, 0xE0, 0x12, 0x34, 0x56, 0x78]
        return [0, 0, 0, 1, 0x67] + w.bytes + [0, 0, 0, 1, 0x68] + pps.bytes + [0, 0, 0, 1, 0x65] + slice
    }

    struct BitWriter {
        var bytes: [UInt8] = []
        var n = 0
        mutating func bits(_ v: Int, _ count: Int) {
            for i in stride(from: count - 1, through: 0, by: -1) {
                if n % 8 == 0 { bytes.append(0) }
                if (v >> i) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(0x80 >> (n % 8)) }
                n += 1
            }
        }
        mutating func ue(_ v: Int) {
            let x = v + 1
            let len = Int.bitWidth - x.leadingZeroBitCount
            bits(0, len - 1)
            bits(x, len)
        }
        mutating func se(_ v: Int) { ue(v <= 0 ? -2 * v : 2 * v - 1) }
        mutating func trailing() {
            bits(1, 1)
            while n % 8 != 0 { bits(0, 1) }
        }
    }
}
