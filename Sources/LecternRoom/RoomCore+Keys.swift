import LecternModel
import LecternProtocol

extension RoomCore {
    /// Keys derived off the loop for a reload or a new code on the wall: keys newer than
    /// those in force apply to the next registrations (devices already in keep their
    /// role); a derivation that finishes after a newer one is dropped.
    mutating func keysDerived(_ new: Keys) {
        guard new.serial > keys.serial else {
            log(.debug, "keys \(new.serial) derived after keys \(keys.serial): dropped")
            return
        }
        keys = new
        emit(.keysInForce(serial: new.serial))
    }
}
