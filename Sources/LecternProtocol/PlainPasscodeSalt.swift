import Crypto

/// The salt of a plain passcode (one written as is in the config, not as a hash), stable
/// across restarts: HMAC-SHA256(secret, "lectern-salt-v1" || role || NFC(passcode))
/// cut to 16 bytes, where `secret` is the appliance's own random 32 bytes kept in its data
/// directory (`SaltSecret` in the service). So the same passcode gives the same salt and key
/// after a restart (a web page's kept key still proves it: nobody is logged out), a changed
/// passcode gives a new salt (the page can tell the passcode changed, honestly), and the
/// salt says nothing of the passcode to anyone without the secret.
public enum PlainPasscodeSalt {
    public static let domain = Array("lectern-salt-v1".utf8)
    public static let secretLength = 32

    public static func salt(secret: [UInt8], role: Role, passcode: String) -> [UInt8] {
        let mac = HMAC<SHA256>.authenticationCode(
            for: domain + [role.rawValue] + PasscodeHash.passcodeBytes(passcode), using: SymmetricKey(data: secret))
        return Array(Array(mac).prefix(PasscodeHash.defaultSaltLength))
    }

    /// The key the room checks proofs against, still to be derived: a hash from the config
    /// as it is; a plain passcode with its stable salt (nil secret: a random salt).
    public static func key(config value: String, role: Role, secret: [UInt8]?) throws(PasscodeHash.ParseError) -> PendingKey {
        if PasscodeHash.isHashForm(value) { return .given(try PasscodeHash.parse(value)) }
        guard !value.isEmpty else { throw .notAHash }
        let salt = secret.map { Self.salt(secret: $0, role: role, passcode: value) } ?? randomBytes(PasscodeHash.defaultSaltLength)
        return .derive(passcode: value, rounds: PasscodeHash.defaultRounds, salt: salt)
    }
}
