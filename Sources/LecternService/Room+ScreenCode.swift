import LecternCore
import LecternProtocol
import LecternRoom

extension ScreenCode {
    /// PBKDF2 rounds of a code's key: a code lives an hour at most and needs the wall to be
    /// seen, so it is derived fast (off the loop, with the moderator's: `KeyDeriver`); the
    /// throttle (AuthThrottle) bounds online guessing as for any passcode.
    static let rounds: UInt32 = 20_000
}

extension Room {
    /// On the room's tick: a new code when a meeting ended or the old one's time is up; the
    /// room is re-keyed off the loop, and once the new keys are in force (new registrations
    /// prove the new code) `onScreenCode` redraws the idle screen with it.
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
            let serial = try keyDeriver.rekey(core.config, screenCode: code.code, report: report)
            keysAwaited.append(
                (
                    serial,
                    { [weak self] in
                        self?.wallCode = code.code
                        self?.onScreenCode?(code.code)
                        self?.checkJoiningCorner()
                    }
                ))
        } catch {
            logger.error("screen code: \(error)")
        }
        logger.info("a new code on the wall (\(code.previous == nil ? "first" : "the meeting ended or its time was up"))")
    }
}

extension Room {
    /// When the joining count or the wall's code changed: the code small in the wall's
    /// corner while a device is joining (JoiningCorner); `onCornerCode` is told when that changes.
    func checkJoiningCorner() {
        let corner = JoiningCorner.code(screenCode: wallCode, joining: joining)
        guard corner != cornerCode else { return }
        cornerCode = corner
        onCornerCode?(corner)
    }
}
