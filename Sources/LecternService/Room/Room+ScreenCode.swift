import LecternModel
import LecternProtocol
import LecternRoom

extension ScreenCode {
    /// PBKDF2 rounds of a code's key: a code lives an hour at most and needs the wall to be
    /// seen, so it is derived fast (off the loop, with the moderator's: `KeyDeriver`); the
    /// throttle (AuthThrottle) bounds online guessing as for any passcode.
    static let rounds: UInt32 = 20_000
}

/// The shell's side of the code on the wall (`screen_code = true`; the core decides when
/// it changes): the newest code drawn, the one whose keys are in force, what waits for
/// keys, and the corner's code.
struct RoomCodes {
    /// The newest code the core drew (nil: no code): a reload derives the keys with it.
    var drawn: String?
    /// The code on the wall: the one whose keys are in force (nil: no code).
    var wallCode: String?
    /// What waits for keys being derived (a new code for the wall, a reload's end): run,
    /// in order, once the keys of that serial (or newer ones) are in force.
    var keysAwaited: [(serial: UInt64, then: () -> Void)] = []
    /// Connections joining now (the core's `.joining`): the corner shows the code then.
    var joining = 0
    /// The code in the wall's corner now (nil: none).
    var cornerCode: String?
    let onScreenCode: ((String) -> Void)?
    let onCornerCode: ((String?) -> Void)?

    init(code: String?, onScreenCode: ((String) -> Void)?, onCornerCode: ((String?) -> Void)?) {
        drawn = code
        wallCode = code
        self.onScreenCode = onScreenCode
        self.onCornerCode = onCornerCode
    }
}

extension Room {
    /// The code on the wall: the one whose keys are in force (nil: no code).
    var wallCode: String? { codes.wallCode }
    /// The code in the wall's corner now (nil: none).
    var cornerCode: String? { codes.cornerCode }
    /// Told of a new code on the wall once its keys are in force.
    var onScreenCode: ((String) -> Void)? { codes.onScreenCode }
    /// Told when the corner's code changes.
    var onCornerCode: ((String?) -> Void)? { codes.onCornerCode }

    /// What the room's tick does for the code, now (the core decides: RoomCore+ScreenCode).
    func checkScreenCode() { feed(.tick) }

    /// A new code the core drew: the room is re-keyed off the loop, and once the new keys
    /// are in force (new registrations prove the new code) `onScreenCode` redraws the idle
    /// screen with it.
    func rekey(for code: String) {
        codes.drawn = code
        do {
            let serial = try keyDeriver.rekey(core.config, screenCode: code, report: report)
            codes.keysAwaited.append(
                (
                    serial,
                    { [weak self] in
                        self?.codes.wallCode = code
                        self?.onScreenCode?(code)
                        self?.checkJoiningCorner()
                    }
                ))
        } catch {
            logger.error("screen code: \(error)")
        }
    }

    /// When the joining count or the wall's code changed: the code small in the wall's
    /// corner while a device is joining (JoiningCorner); `onCornerCode` is told when that changes.
    func checkJoiningCorner() {
        let corner = JoiningCorner.code(screenCode: codes.wallCode, joining: codes.joining)
        guard corner != codes.cornerCode else { return }
        codes.cornerCode = corner
        onCornerCode?(corner)
    }
}
