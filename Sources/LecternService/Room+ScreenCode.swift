import LecternCore
import LecternProtocol
import LecternRoom

extension ScreenCode {
    /// PBKDF2 rounds of a code's key: a code lives an hour at most and needs the wall to be
    /// seen, so it is derived fast (on the room's loop at each change); the throttle
    /// (AuthThrottle) bounds online guessing as for any passcode.
    static let rounds: UInt32 = 20_000
}

extension Room {
    /// On the room's tick: a new code when a meeting ended or the old one's time is up; the
    /// room is re-keyed (new registrations prove the new code) and `onScreenCode` redraws
    /// the idle screen.
    func checkScreenCode() {
        loop.preconditionInEventLoop()
        guard var code = screenCode else { return }
        let devices = core.snapshot(now: clock()).devices.count
        guard code.check(now: clock(), devices: devices, random: { UInt32.random(in: .min ... .max) }) else {
            screenCode = code
            return
        }
        screenCode = code
        do {
            core.reload(core.config, keys: try Self.keys(core.config, screenCode: code.code))
        } catch {
            logger.error("screen code: \(error)")
        }
        logger.info("a new code on the wall (\(code.previous == nil ? "first" : "the meeting ended or its time was up"))")
        onScreenCode?(code.code)
    }
}

extension Room {
    /// After each event: the code small in the wall's corner while a device is joining
    /// (JoiningCorner); `onCornerCode` is told when that changes.
    func checkJoiningCorner() {
        let corner = JoiningCorner.code(screenCode: screenCode?.code, joining: core.joiningCount)
        guard corner != cornerCode else { return }
        cornerCode = corner
        onCornerCode?(corner)
    }
}
