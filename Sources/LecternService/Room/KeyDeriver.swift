import Dispatch
import LecternModel
import LecternProtocol
import LecternRoom
import NIOConcurrencyHelpers

/// Re-keys the room (a reload, a new code on the wall) without stalling its event loop:
/// the plan is made and checked on the caller's thread (cheap: `RoomKeys.plan`), the
/// PBKDF2 rounds (up to three times 210,000) run on a thread of its own, and the keys come
/// back as `RoomEvent.keysDerived`; the core puts the newest in force. Plans made while one
/// is being derived wait, and only the newest of them is derived (a burst of reloads costs
/// two derivations, not one each).
final class KeyDeriver: Sendable {
    private let queue = DispatchQueue(label: "lectern.keys")
    /// The data directory's kept secret, salting plain passcodes (`data_dir` is read once).
    private let secret: [UInt8]?
    private let state = NIOLockedValueBox<(serial: UInt64, waiting: RoomKeys.Plan?)>((0, nil))
    /// The keys in force, by what they were derived from: only what changed is derived again.
    private let known = NIOLockedValueBox<[(PendingKey, PasscodeHash)]>([])

    init(secret: [UInt8]?) { self.secret = secret }

    /// The keys for `config`, derived on this thread: at start, before anyone connects.
    func keysNow(_ config: Config, screenCode: String?) throws -> RoomCore.Keys {
        let plan = try RoomKeys.plan(config, screenCode: screenCode, secret: secret, serial: 0)
        let keys = plan.derive()
        known.withLockedValue { $0 = plan.derived(keys) }
        return keys
    }

    /// New keys for `config`, derived off this thread and reported as `.keysDerived`;
    /// returns their serial. Throws at once (nothing derived) when the passcodes don't go
    /// together.
    @discardableResult
    func rekey(_ config: Config, screenCode: String?, report: @escaping @Sendable (RoomEvent) -> Void) throws -> UInt64 {
        let serial = state.withLockedValue { s in
            s.serial += 1
            return s.serial
        }
        let plan = try RoomKeys.plan(config, screenCode: screenCode, secret: secret, serial: serial)
        let wasIdle = state.withLockedValue { s in
            defer { if s.waiting.map({ $0.serial < plan.serial }) ?? true { s.waiting = plan } }
            return s.waiting == nil
        }
        guard wasIdle else { return serial }   // the job already queued takes the newest plan
        queue.async { [self] in
            guard
                let next = state.withLockedValue({ s in
                    defer { s.waiting = nil }; return s.waiting
                })
            else { return }
            let keys = next.derive(reusing: known.withLockedValue { $0 })
            known.withLockedValue { $0 = next.derived(keys) }
            report(.keysDerived(keys))
        }
        return serial
    }
}
