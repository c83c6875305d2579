/// Admission of new connections on both listeners (the protocol's TCP port and the web
/// remote's HTTP port), counted together by address and state (docs/protocol.md, "Limits").
/// Pure: no sockets, no clock; the shell (`AdmissionHandler` in LecternService) asks at
/// accept and reports registrations and closes.
///
/// A new connection is admitted when
/// - its address holds fewer than `perAddress` connections, and
/// - fewer than `total` connections are open, and
/// - fewer than `total - reservedForDevices` of them are not (yet) registered devices:
///   the last `reservedForDevices` places are kept for connections that have registered,
///   so a flood of idle or half-open connections is refused before registered devices
///   run short of descriptors.
///
/// When the unregistered places are all taken, a newcomer from an address holding fewer
/// connections than the busiest address still gets in: the busiest address's oldest
/// unregistered connection is closed for it (`Decision.admit(evicting:)`). A flood from
/// many addresses can't keep one more person out.
///
/// Refused connections are told so where the protocol can carry it; up to `answering`
/// of them at once are kept open that long (`Decision.refuse(answer: true)`), the rest are
/// closed at once.
public struct ConnectionGate: Sendable {
    public struct Limits: Equatable, Sendable {
        public var total: Int
        public var perAddress: Int
        public var reservedForDevices: Int
        /// Refused connections kept open at once to be told why.
        public var answering: Int

        public init(total: Int = 1024, perAddress: Int = 64, reservedForDevices: Int = 256, answering: Int = 32) {
            self.total = total
            self.perAddress = perAddress
            self.reservedForDevices = reservedForDevices
            self.answering = answering
        }

        /// Connections that are not registered devices may take this many places.
        public var unregistered: Int { max(1, total - reservedForDevices) }
    }

    public typealias ID = UInt64

    public enum Reason: Equatable, Sendable {
        /// The address holds `perAddress` connections already.
        case address
        /// The service holds all the connections it takes.
        case full
    }

    public enum Decision: Equatable, Sendable {
        /// Admitted as `id`; close `evicting` first when it is set.
        case admit(ID, evicting: ID?)
        /// Refused. `answer`: the connection may stay open (as `id`) just long enough to be
        /// told why, then closes (`closed(id)`); otherwise close it at once.
        case refuse(Reason, answer: ID?)
    }

    private struct Entry {
        let address: String
        var registered: Bool
        let refused: Bool
    }

    public var limits: Limits
    private var entries: [ID: Entry] = [:]
    private var perAddress: [String: Int] = [:]
    private var nextID: ID = 1
    public private(set) var open = 0
    public private(set) var registered = 0
    public private(set) var answering = 0

    public init(limits: Limits = Limits()) { self.limits = limits }

    public var unregistered: Int { open - registered }

    /// Connections (admitted) from `address`.
    public func count(from address: String) -> Int { perAddress[address] ?? 0 }

    public mutating func arrive(address: String) -> Decision {
        let mine = count(from: address)
        if mine >= limits.perAddress { return refuse(.address, address) }
        if open >= limits.total { return refuse(.full, address) }
        if unregistered >= limits.unregistered {
            guard let victim = evictionCandidate(newcomerHolds: mine) else { return refuse(.full, address) }
            closed(victim)
            return .admit(add(address), evicting: victim)
        }
        return .admit(add(address), evicting: nil)
    }

    /// The connection registered as a device: it may use the reserved places.
    public mutating func registered(_ id: ID) {
        guard var e = entries[id], !e.refused, !e.registered else { return }
        e.registered = true
        entries[id] = e
        registered += 1
    }

    public mutating func closed(_ id: ID) {
        guard let e = entries.removeValue(forKey: id) else { return }
        if e.refused {
            answering -= 1
            return
        }
        open -= 1
        if e.registered { registered -= 1 }
        let n = (perAddress[e.address] ?? 1) - 1
        perAddress[e.address] = n > 0 ? n : nil
    }

    private mutating func add(_ address: String) -> ID {
        let id = nextID
        nextID += 1
        entries[id] = Entry(address: address, registered: false, refused: false)
        perAddress[address, default: 0] += 1
        open += 1
        return id
    }

    private mutating func refuse(_ reason: Reason, _ address: String) -> Decision {
        guard answering < limits.answering else { return .refuse(reason, answer: nil) }
        let id = nextID
        nextID += 1
        entries[id] = Entry(address: address, registered: false, refused: true)
        answering += 1
        return .refuse(reason, answer: id)
    }

    /// The oldest unregistered connection of the busiest address, when that address holds
    /// at least two more than the newcomer's (so that two addresses can't take turns).
    private func evictionCandidate(newcomerHolds mine: Int) -> ID? {
        guard let (busiest, n) = perAddress.max(by: { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }),
            n >= mine + 2
        else { return nil }
        return entries.filter { $0.value.address == busiest && !$0.value.registered && !$0.value.refused }.keys.min()
    }
}
