import Foundation

extension Fixtures {
    /// A clip with sound: `seconds` of black 320×240 at 25 fps (white from `flash` for
    /// 0.12 s, if given) and AAC sound, a 1 kHz sine (amplitude 1/8 of full scale) where
    /// `tone` (an FFmpeg expression in t) holds, silence elsewhere; made with the ffmpeg CLI.
    public static func toneClip(
        in dir: String, seconds: Double, tone: String = "1", flash: Double? = nil, name: String = "tone.mp4"
    ) throws -> String {
        let path = dir + "/" + name
        let box = flash.map { "drawbox=x=0:y=0:w=iw:h=ih:color=white:t=fill:enable='between(t,\($0),\($0 + 0.119))'" } ?? "null"
        let r = try run(
            "ffmpeg",
            [
                "-v", "error", "-y",
                "-f", "lavfi", "-i", "color=c=black:s=320x240:r=25:d=\(seconds)",
                "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000:duration=\(seconds)",
                "-vf", box, "-af", "volume=volume=0:enable='not(\(tone))'",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "25", "-c:a", "aac", "-b:a", "128k", "-shortest", path,
            ])
        guard r.status == 0 else { throw ToolError(description: "ffmpeg made no clip: \(r.err)") }
        return path
    }

    /// Interleaved S16 stereo, as ALSA's file plugin writes it (FORMAT=raw).
    public static func rawSamples(_ path: String, from frame: Int = 0) -> [Int16] {
        guard let d = FileManager.default.contents(atPath: path), d.count > frame * 4 else { return [] }
        return d.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)[(frame * 2)...]) }
    }
}
