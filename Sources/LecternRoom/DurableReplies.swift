import LecternProtocol

/// What is acknowledged is on disk first (docs/protocol.md §14.4): the replies of an event
/// that changed the saved state (a stroke's ok, a poll answer's ok) wait until the state
/// write that contains the change has been fsynced; later frames to the same connection
/// wait behind them (a connection's frames keep their order). Writes are grouped: the
/// shell's writer always writes the newest state, so one fsync releases every reply
/// asked before it. Pure: the room's effects in, the effects to carry now out; the
/// writer's reports (`written`) release what waited.
public struct DurableReplies: Sendable {
    /// Something held for a connection: bytes to write, or its close after them.
    public enum Held: Equatable, Sendable {
        case write([UInt8])
        case close
    }

    /// The generation of the newest state write asked for (0: none yet).
    public private(set) var asked: UInt64 = 0
    /// The newest generation on disk.
    public private(set) var durable: UInt64 = 0
    private var held: [ConnectionID: [(generation: UInt64, item: Held)]] = [:]

    public init() {}

    /// Frames and closes waiting, over every connection.
    public var heldCount: Int { held.values.reduce(0) { $0 + $1.count } }

    /// One event's effects: its state writes become one (the newest state, generation
    /// `asked`, at the place of the last), its replies (tag ≠ 0) wait for that write, and
    /// whatever follows a held frame on its connection waits behind it. Effects with no
    /// connection's order at stake pass at once.
    public mutating func pass(_ effects: [RoomEffect]) -> [RoomEffect] {
        guard let lastPersist = effects.lastIndex(where: { if case .persist = $0 { true } else { false } }) else {
            return effects.filter { !holdBehind($0) }
        }
        asked += 1
        let generation = asked
        var out: [RoomEffect] = []
        for (i, e) in effects.enumerated() {
            switch e {
            case .persist: if i == lastPersist { out.append(e) }
            case .send(let id, let bytes) where Self.tag(bytes) != 0 || held[id] != nil:
                held[id, default: []].append((generation, .write(bytes)))
            default: if !holdBehind(e) { out.append(e) }
            }
        }
        return out
    }

    /// A frame or close for a connection that has frames waiting joins them (behind the
    /// newest write they wait for). True when held.
    private mutating func holdBehind(_ e: RoomEffect) -> Bool {
        switch e {
        case .send(let id, let bytes):
            guard let last = held[id]?.last else { return false }
            held[id]!.append((last.generation, .write(bytes)))
            return true
        case .close(let id):
            guard let last = held[id]?.last else { return false }
            held[id]!.append((last.generation, .close))
            return true
        default: return false
        }
    }

    /// The writer reports generation `generation` on disk (or given up: a write that
    /// failed releases its replies too, the failure logged by the shell; a client is never
    /// left waiting). Returns what may go now, each connection's in order.
    public mutating func written(_ generation: UInt64) -> [(ConnectionID, Held)] {
        durable = max(durable, generation)
        var out: [(ConnectionID, Held)] = []
        for id in held.keys.sorted() {
            var queue = held[id]!
            let ready = queue.prefix { $0.generation <= durable }
            out += ready.map { (id, $0.item) }
            queue.removeFirst(ready.count)
            held[id] = queue.isEmpty ? nil : queue
        }
        return out
    }

    /// The connection is gone: what waited for it is dropped.
    public mutating func closed(_ id: ConnectionID) { held[id] = nil }

    /// The tag of an encoded frame (bytes 2–3 of its header; 0: unsolicited).
    static func tag(_ bytes: [UInt8]) -> UInt16 {
        bytes.count >= FrameHeader.size ? UInt16(bytes[2]) << 8 | UInt16(bytes[3]) : 0
    }
}
