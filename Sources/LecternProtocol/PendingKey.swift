/// A key the config gives, before its PBKDF2 rounds are run: a hash taken as it is, or a
/// passcode with the rounds and salt to derive it with. Cheap to make; `key()` is the slow
/// part (210,000 rounds for a plain passcode), which the service runs off its event loop.
public enum PendingKey: Equatable, Sendable {
    case given(PasscodeHash)
    case derive(passcode: String, rounds: UInt32, salt: [UInt8])

    public var rounds: UInt32 {
        switch self {
        case .given(let h): h.rounds
        case .derive(_, let rounds, _): rounds
        }
    }

    public var salt: [UInt8] {
        switch self {
        case .given(let h): h.salt
        case .derive(_, _, let salt): salt
        }
    }

    /// The key, derived now when it has to be.
    public func key() -> PasscodeHash {
        switch self {
        case .given(let h): h
        case .derive(let passcode, let rounds, let salt): PasscodeHash.derive(passcode: passcode, rounds: rounds, salt: salt)
        }
    }
}
