import Foundation
import Glibc
import LecternModel
import LecternSystem
import LecternProtocol

/// `<data_dir>/passcode-salt.key`: the appliance's own 32 random bytes that plain passcodes
/// are salted with (`PlainPasscodeSalt`), made at the first start and kept, readable by the
/// service's user only (0600), so that a restart derives the same keys and no browser is
/// logged out. A file of the wrong size is replaced (the pages then join again, once); a
/// data directory that can't be written gives nil: a fresh salt at every start, as before.
enum SaltSecret {
    static func path(dataDir: String) -> String { dataDir + "/passcode-salt.key" }

    static func load(dataDir: String) -> [UInt8]? {
        let p = path(dataDir: dataDir)
        if let d = FileManager.default.contents(atPath: p), d.count == PlainPasscodeSalt.secretLength {
            chmod(p, 0o600)   // owner only, whatever an admin's copy left it at
            return Array(d)
        }
        let secret = randomBytes(PlainPasscodeSalt.secretLength)
        try? FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true)
        do { try AtomicFile.write(Data(secret), to: p) } catch { return nil }
        return secret
    }
}
