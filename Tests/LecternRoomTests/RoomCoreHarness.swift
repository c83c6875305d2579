import LecternModel
import LecternProtocol
import LecternRoom
import XCTest
import Synchronization

/// Drives a `RoomCore` with events and a hand-moved clock, and reads its effects: the
/// in-memory layer under the over-TCP tests. No sockets, threads or files.
final class RoomCoreHarness {
    static let presenterPasscode = "presenter-pass"
    static let moderatorPasscode = "moderator-pass"
    static let presenterKey = PasscodeHash.derive(passcode: presenterPasscode, rounds: 10_000, salt: Array(repeating: 1, count: 16))
    static let moderatorKey = PasscodeHash.derive(passcode: moderatorPasscode, rounds: 10_000, salt: Array(repeating: 2, count: 16))

    var core: RoomCore
    var now: Double = 1000
    /// The wall clock given with each event (seconds since 1970), moved by hand.
    let wall = WallClock()
    /// Everything the core asked for, in order, since the harness started.
    private(set) var log: [RoomEffect] = []

    init(
        floor: FloorMode = .moderated, catalog: [ContentEntry] = [], parts: [ContentID: UInt64] = [:],
        storeBytes: UInt64 = 0, unconverted: [ContentEntry] = [], audience: PasscodeHash? = nil, audienceMode: RoomCore.Keys.AudienceMode = .passcode,
        seed: UInt64? = nil, screenCode: ScreenCode? = nil, configure: (inout Config) -> Void = { _ in }
    ) {
        var c = Config()
        c.room = "Core Room"
        c.floor = floor
        configure(&c)
        core = RoomCore(
            config: c, keys: RoomCore.Keys(presenter: Self.presenterKey, moderator: Self.moderatorKey, audience: audience, audienceMode: audienceMode),
            serverName: "lecternd test", catalog: ContentCatalog(catalog), parts: parts, storeBytes: storeBytes, unconverted: unconverted,
            screenCode: screenCode, random: .seeded(seed ?? Self.nextSeed()))
        // Every push seen as it is made; the pacing's own tests set it back (StatePacerTests).
        core.statePushInterval = 0
    }

    /// Each harness its own seed unless told (two rooms, like two runs, draw different
    /// tokens), the same ones in every run of the tests.
    private static let seeds = Mutex<UInt64>(0)
    private static func nextSeed() -> UInt64 {
        seeds.withLock { s in
            s += 1
            return s
        }
    }

    @discardableResult
    func handle(_ event: RoomEvent) -> [RoomEffect] {
        let effects = core.handle(event, now: now, wall: wall.seconds)
        log += effects
        return effects
    }

    /// A client frame from connection `id`.
    @discardableResult
    func send(_ m: Message, from id: ConnectionID, tag: UInt16 = 7, device: UInt8 = ProtocolLimits.unregisteredID) -> [RoomEffect] {
        let bytes = m.encode(tag: tag, deviceID: device)
        let header = try! FrameHeader.decode(bytes)
        return handle(.frame(id, WireFrame(header: header, body: Array(bytes[FrameHeader.size...]))))
    }

    /// Opens connection `id` and returns its hello.
    func open(_ id: ConnectionID, address: String = "10.0.0.\(Int.random(in: 2...250))") -> Hello {
        let effects = handle(.opened(id, address: address, challenge: Self.challenge(id)))
        guard case .hello(let h)? = Self.messages(to: id, effects).first else { fatalError("no hello: \(effects)") }
        return h
    }

    static func challenge(_ id: ConnectionID) -> [UInt8] { (0..<32).map { UInt8(truncatingIfNeeded: Int($0) &+ Int(id) &* 7) } }

    /// Opens `id` and registers it; returns its device id.
    @discardableResult
    func join(_ id: ConnectionID, name: String, role: Role = .presenter, address: String? = nil) -> DeviceID {
        let hello = address.map { open(id, address: $0) } ?? open(id)
        let effects = send(register(id, hello: hello, name: name, role: role), from: id)
        for m in Self.messages(to: id, effects) { if case .registerOK(let ok) = m { return ok.deviceID } }
        fatalError("\(name) did not register: \(Self.messages(to: id, effects))")
    }

    func register(_ id: ConnectionID, hello: Hello, name: String, role: Role, passcode: String? = nil) -> Message {
        let pass = passcode ?? (role == .presenter ? Self.presenterPasscode : Self.moderatorPasscode)
        let proof = RegisterProof.compute(
            passcode: pass, parameters: hello.parameters(for: role)!, challenge: hello.challenge,
            role: role, name: name, resumeToken: nil)
        return .register(RegisterRequest(role: role, proof: proof, resumeToken: nil, name: name))
    }

    // MARK: reading effects

    /// The messages sent to `id` among `effects`, decoded as a client would.
    static func messages(to id: ConnectionID, _ effects: [RoomEffect]) -> [Message] {
        effects.compactMap {
            guard case .send(let to, let bytes) = $0, to == id else { return nil }
            return try! Message.decode(WireFrame(header: FrameHeader.decode(bytes), body: Array(bytes[FrameHeader.size...])), sentBy: .server)
        }
    }

    /// The messages sent to `id`, without state pushes, pings and hellos (the replies).
    static func replies(to id: ConnectionID, _ effects: [RoomEffect]) -> [Message] {
        messages(to: id, effects).filter {
            switch $0 {
            case .state, .ping, .hello: return false;
            default: return true
            }
        }
    }

    static func states(to id: ConnectionID, _ effects: [RoomEffect]) -> [Snapshot] {
        messages(to: id, effects).compactMap { if case .state(let s) = $0 { return s } else { return nil } }
    }

    /// The error code of the one failure reply among `effects` to `id`.
    static func errorCode(to id: ConnectionID, _ effects: [RoomEffect]) -> ErrorCode? {
        for m in replies(to: id, effects) {
            switch m {
            case .error(let e), .registerFailed(let e), .controlFailed(let e): return e.code
            default: continue
            }
        }
        return nil
    }

    /// The shell's work among `effects` other than shows of the wall (clips, sound, uploads…).
    static func clipWork(_ effects: [RoomEffect]) -> [RoomEffect] {
        work(effects).filter { if case .showWall = $0 { return false } else { return true } }
    }

    /// The effects other than sends, logs and what the shell serves (what the shell is asked
    /// to do; ServedCoreTests has the served facts).
    static func work(_ effects: [RoomEffect]) -> [RoomEffect] {
        effects.filter {
            switch $0 {
            case .send, .log, .persist, .wake, .prepareConverter, .offerDownload, .pageImageAccess, .joining: return false;
            default: return true
            }
        }
    }
}

func cid(_ byte: UInt8) -> ContentID { ContentID(bytes: [UInt8](repeating: byte, count: 32))! }

func deck(_ byte: UInt8, pages: Int = 5, name: String = "deck.pdf") -> ContentEntry {
    ContentEntry(id: cid(byte), name: name, kind: .pdf, size: 1000, pages: pages)
}

extension RoomCoreHarness {
    /// Makes `device` (on `id`) an uploader of the stored `content`, the way a client that
    /// has the file does: upload-begin with a possession proof the worker found right.
    func own(_ content: ContentID, from id: ConnectionID, device: DeviceID) {
        let begin = UploadBegin(content: content, size: 1000, kind: nil, proof: Array(repeating: 9, count: 32), name: "deck.pdf")
        let effects = send(.uploadBegin(begin), from: id, device: device)
        XCTAssertEqual(Self.work(effects), [.checkProof(id, tag: 7, begin, challenge: Self.challenge(id))])
        let ready = handle(.proofChecked(id, tag: 7, begin, matches: true))
        guard case .uploadReady(let r)? = Self.replies(to: id, ready).first, r.status == .stored else {
            return XCTFail("no upload-ready stored: \(ready)")
        }
    }
}

extension RoomCoreHarness {
    /// The scenes the core asked the stage to show on a one-pane wall among `effects` (the
    /// room always asks for the whole wall's plan: these are the `full` ones of a scene).
    static func shows(_ effects: [RoomEffect]) -> [Scene] {
        effects.compactMap {
            guard case .showWall(_, let plan) = $0, plan.layout == .full, case .scene(let s) = plan.panes[0] else { return nil }
            return s
        }
    }

    /// The plans of the whole wall the core asked the stage to show among `effects`.
    static func walls(_ effects: [RoomEffect]) -> [WallPlan] {
        effects.compactMap { if case .showWall(_, let p) = $0 { return p } else { return nil } }
    }

    /// Reports the one show asked for among `effects` as done (or failed).
    @discardableResult
    func shown(_ effects: [RoomEffect], error: LecternError? = nil, file: StaticString = #filePath, line: UInt = #line) -> [RoomEffect] {
        let ops = effects.compactMap { if case .showWall(let op, _) = $0 { return op } else { return nil } }
        guard ops.count == 1 else { XCTFail("expected one show, got \(ops.count)", file: file, line: line); return [] }
        return handle(.shown(op: ops[0], error: error))
    }
}

func page(_ byte: UInt8, _ n: Int) -> Scene { .page(content: cid(byte).hex, page: n) }

/// A hand-moved wall clock for the core's timer.
final class WallClock: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Double = 1_800_000_000
    var seconds: Double {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
