extension Fixtures {
    /// A 640×480 (4:3) H.264 clip of one colour, `seconds` long at 25 fps, made with the
    /// ffmpeg CLI (libx264); throws, saying why, when ffmpeg fails.
    public static func clip(in dir: String, color: String = "red", seconds: Double = 2, name: String = "clip.mp4") throws -> String {
        let path = dir + "/" + name
        let r = try run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=\(color):s=640x480:r=25:d=\(seconds)",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "25", path,
            ])
        guard r.status == 0 else { throw ToolError(description: "ffmpeg made no clip: \(r.err)") }
        return path
    }

    /// A 4:3 clip (640×480, 30 fps, H.264) whose left half is red and right half blue: a known
    /// pattern to find where a pane put the picture (the pane-clip tests).
    public static func halvesClip(in dir: String, seconds: Double = 4) throws -> String {
        let path = dir + "/halves.mp4"
        let r = try run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i",
                "color=c=red:s=640x480:r=30:d=\(seconds),drawbox=x=320:y=0:w=320:h=480:color=blue:t=fill",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "30", path,
            ])
        guard r.status == 0 else { throw ToolError(description: "ffmpeg made no clip: \(r.err)") }
        return path
    }
}

extension Fixtures {
    /// A 4:3 clip (640×480, 25 fps, H.264) red for its first 2 s and blue for the next 2 s:
    /// the picture tells where in the clip it is (a paused clip restored at its position).
    public static func redThenBlueClip(in dir: String) throws -> String {
        let path = dir + "/red-then-blue.mp4"
        let r = try run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=red:s=640x480:r=25:d=2", "-f", "lavfi", "-i", "color=c=blue:s=640x480:r=25:d=2",
                "-filter_complex", "[0:v][1:v]concat=n=2:v=1[v]", "-map", "[v]", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "25", path,
            ])
        guard r.status == 0 else { throw ToolError(description: "ffmpeg made no clip: \(r.err)") }
        return path
    }
}
