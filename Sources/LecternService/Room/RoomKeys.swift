import LecternModel
import LecternProtocol
import LecternRoom

/// The room's keys from the config's passcodes, in two steps: a `Plan` (cheap: hashes
/// parsed, salts chosen, the rules between them checked, so a reload is refused at once)
/// and its derivation (PBKDF2: 210,000 rounds for each plain passcode, a fraction of a
/// second that must not run on the room's event loop: `KeyDeriver` runs it).
///
/// Plain passcodes are salted with the data directory's kept secret (`PlainPasscodeSalt`),
/// so that their keys are the same after a restart. With `screen_code = true` the
/// presenter's key is the code on the wall's (a fresh salt each code).
enum RoomKeys {
    struct KeyError: Error, CustomStringConvertible { let description: String }

    /// What to derive, for the keys numbered `serial` (newer keys have larger numbers).
    struct Plan: Sendable {
        var serial: UInt64
        var presenter: PendingKey
        var moderator: PendingKey?
        var audience: PendingKey?
        var audienceMode: AudienceMode

        /// The keys: the slow part, but for the keys in `known` (derived before, by what they
        /// were derived from: a reload that keeps a passcode, a new code on the wall beside
        /// the moderator's fixed passcode, derive only what is new).
        func derive(reusing known: [(PendingKey, PasscodeHash)] = []) -> RoomCore.Keys {
            func key(_ k: PendingKey) -> PasscodeHash { known.first { $0.0 == k }?.1 ?? k.key() }
            var keys = RoomCore.Keys(presenter: key(presenter), moderator: moderator.map(key), audience: audience.map(key), audienceMode: audienceMode)
            keys.serial = serial
            return keys
        }

        /// Each key with what it was derived from, for the next plan's `derive(reusing:)`.
        func derived(_ keys: RoomCore.Keys) -> [(PendingKey, PasscodeHash)] {
            [(presenter, keys.presenter)]
                + [moderator.flatMap { m in keys.moderator.map { (m, $0) } }, audience.flatMap { a in keys.audience.map { (a, $0) } }]
                .compactMap { $0 }
        }
    }

    /// The plan for `config` (with the code on the wall when `screen_code` is on); throws
    /// with what is wrong (a reload is refused with it).
    static func plan(_ config: Config, screenCode: String?, secret: [UInt8]?, serial: UInt64) throws -> Plan {
        let presenter: PendingKey
        if config.screenCode {
            presenter = .derive(passcode: screenCode ?? "", rounds: ScreenCode.rounds, salt: randomBytes(PasscodeHash.defaultSaltLength))
        } else {
            do { presenter = try PlainPasscodeSalt.key(config: config.passcode ?? "", role: .presenter, secret: secret) } catch {
                throw KeyError(description: "passcode: \(error)")
            }
        }
        var moderator: PendingKey?
        if let value = config.moderatorPasscode {
            do { moderator = try PlainPasscodeSalt.key(config: value, role: .moderator, secret: secret) } catch {
                throw KeyError(description: "moderator_passcode: \(error)")
            }
        }
        var audience: PendingKey?
        if let value = config.audiencePasscode {
            // Derived with the presenter passcode's parameters: hello announces those for viewers.
            if PasscodeHash.isHashForm(value) {
                guard let h = try? PasscodeHash.parse(value), h.salt == presenter.salt, h.rounds == presenter.rounds else {
                    throw KeyError(description: "audience_passcode: a hash must use the salt and rounds of 'passcode' (or give it plain)")
                }
                audience = .given(h)
            } else {
                audience = .derive(passcode: value, rounds: presenter.rounds, salt: presenter.salt)
            }
        }
        return Plan(serial: serial, presenter: presenter, moderator: moderator, audience: audience, audienceMode: config.audience)
    }
}
