import LecternModel
import LecternProtocol

/// The room's live shares (docs/protocol.md §29): one per device at most, each waiting for
/// the moderator or on the wall in one pane. Data only: `RoomCore+Share` drives it.
///
/// A share on the wall sits in a *slot*: the main pane (the floor's), or the pane its
/// sharer drives. The pane's index is looked up each time from the slot, so a swap, a new
/// layout or the floor changing hands moves or ends the share without any index to keep
/// in step; two shares can't be in one pane because a pane has one driver (and the main
/// pane one share).
struct ShareBoard: Equatable, Sendable {
    enum Slot: Equatable {
        /// The main pane: the sharer drives it (the floor), or is a moderator.
        case main
        /// The pane other than the main one that the sharer drives.
        case driven
    }

    struct Share: Equatable {
        let device: DeviceID
        /// The display loop's source for it (clips count from 1, shares from `firstSerial`).
        let serial: Int
        var connection: ConnectionID?
        var config: ShareConfig
        var name: String
        /// Nil while waiting for the moderator.
        var slot: Slot?
        /// The sharer paused it (share-control).
        var paused = false
        /// Since when it is on the wall (nil while waiting).
        var liveSince: Double?

        /// Held on its last picture, marked paused: paused, or its sharer's connection gone.
        var held: Bool { paused || connection == nil }
    }

    static let firstSerial = 1 << 30
    private(set) var all: [DeviceID: Share] = [:]
    private var nextSerial = firstSerial
    /// Shares started in this meeting, and the most on the wall at once (metrics).
    private(set) var started = 0

    subscript(device: DeviceID) -> Share? {
        get { all[device] }
        set { all[device] = newValue }
    }

    mutating func add(device: DeviceID, connection: ConnectionID, config: ShareConfig, name: String) -> Share {
        let s = Share(device: device, serial: nextSerial, connection: connection, config: config, name: name)
        nextSerial += 1
        started += 1
        all[device] = s
        return s
    }

    @discardableResult
    mutating func remove(_ device: DeviceID) -> Share? { all.removeValue(forKey: device) }

    /// Shares in the order they were started.
    var ordered: [Share] { all.values.sorted { $0.serial < $1.serial } }

    /// The share in the main pane, if any.
    var main: Share? { all.values.first { $0.slot == .main } }

    /// The share whose source is `serial`.
    func share(serial: Int) -> Share? { all.values.first { $0.serial == serial } }

    /// The share on `connection`.
    func share(connection: ConnectionID) -> Share? { all.values.first { $0.connection == connection } }
}
