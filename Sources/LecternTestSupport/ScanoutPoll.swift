import LecternModel
import LecternRender

/// Polls a virtual board's scanout (QEMU's screendump) until `check` holds; on timeout the
/// last frame is kept as `failedPNG` and the error names it. The board and the image
/// harnesses both wait on the wall this way.
public enum ScanoutPoll {
    public static func wait(
        for what: String, timeout: Double, interval: Double, failedPNG: String, detail: String = "",
        screendump: () throws -> Frame, _ check: (Frame) -> Bool
    ) throws -> Frame {
        var last: Frame?
        do {
            try eventually("the scanout to show \(what) (last frame: \(failedPNG))\(detail)", timeout: timeout, interval: interval) {
                last = try screendump()
                return check(last!)
            }
        } catch {
            if let last { try? PNG.write(last, to: failedPNG) }
            throw error
        }
        return last!
    }
}
