import Crypto
import Dispatch
import Foundation
import LecternCore
import LecternProtocol
import LecternRender
import LecternVideo
import Logging
import NIOCore

/// The meeting room as the network sees it: every connection, the floor (`Meeting`), the
/// screen model, uploads and state pushes. Confined to one event loop: every method runs
/// on `loop`. Slow work (rendering and presenting, hashing, PNG encoding) runs on other
/// threads and hops back.
final class Room: @unchecked Sendable {
    /// One TCP connection (a device once registered).
    final class Connection: @unchecked Sendable {   // confined to the room's loop
        let id: ConnectionID
        let transport: PeerTransport
        let address: String
        let challenge = Hello.freshChallenge()
        let connectedAt: Double
        var decoder = FrameDecoder()
        var deviceID: DeviceID?
        var keepAlive: KeepAlive
        var keepAliveTask: RepeatedTask?
        var uploads: [ContentID: Upload] = [:]
        var closing = false
        /// A state push was skipped because the peer is not reading: send the newest later.
        var statePending = false
        /// Reading from the peer is paused until its upload's queued chunks are stored.
        var readingPaused = false

        init(id: ConnectionID, transport: PeerTransport, address: String, now: Double, keepAliveTimeout: Double) {
            self.id = id; self.transport = transport; self.address = address
            connectedAt = now
            keepAlive = KeepAlive(now: now, interval: min(ProtocolLimits.pingIntervalSeconds, keepAliveTimeout / 3),
                                  timeout: keepAliveTimeout)
        }
    }

    /// An upload in progress on one connection.
    struct Upload {
        var session: UploadSession
        /// Stores (and hashes) the chunks off the loop.
        var writer: PartWriter
        var beginTag: UInt16
        /// After a failed chunk, later chunks of this file are dropped silently.
        var failed = false
    }

    let loop: EventLoop
    let logger: Logger
    let stage: Stage
    let store: ContentStore
    let uploadArea: UploadArea
    private(set) var config: Config
    private var presenterKey: PasscodeHash
    private var moderatorKey: PasscodeHash?
    let meeting: Meeting
    private var throttle = AuthThrottle()
    private var connections: [ConnectionID: Connection] = [:]
    private var nextConnectionID: ConnectionID = 1
    private var revision: UInt64 = 0
    private var latestStateBytes: [UInt8] = []
    private(set) var screen = ScreenModel.idle
    private var screenOps: [() -> Void] = []
    private var screenBusy = false
    /// Devices that uploaded (or proved they have) each content id.
    private var owners: [ContentID: Set<DeviceID>] = [:]
    /// Which connection is writing each partial upload (the newest begin wins).
    private var writers: [ContentID: ConnectionID] = [:]
    /// The newest part-file writer of each file being uploaded (kept after its connection
    /// closed until its queued chunks are stored, so a resumed upload starts after them).
    private var parts: [ContentID: PartWriter] = [:]
    private var usedBytes: UInt64
    private var expiryTask: Scheduled<Void>?
    private let work = DispatchQueue(label: "lectern.room.work", qos: .userInitiated, attributes: .concurrent)
    /// The clip playing over the slide, if any.
    struct ClipSession {
        let control: PlaybackControl
        let content: ContentSnapshot
        let duration: Double
        let loop: Bool
        var status: PlaybackStatus
    }
    private(set) var clip: ClipSession?
    private var clipSerial = 0

    /// Saves what is on screen and who holds the floor after every change.
    var stateWriter: StateWriter?

    init(loop: EventLoop, config: Config, stage: Stage, store: ContentStore, logger: Logger) throws {
        self.loop = loop
        self.config = config
        self.stage = stage
        self.store = store
        self.logger = logger
        uploadArea = try UploadArea(dataDir: config.dataDir)
        (presenterKey, moderatorKey) = try Self.keys(config)
        meeting = Meeting(config: MeetingConfig(floorMode: config.floor == .open ? .open : .moderated,
                                                gracePeriod: config.gracePeriod, capacity: config.maxClients))
        usedBytes = UploadArea.bytes(in: store.directory.path) + uploadArea.totalBytes()
    }

    struct KeyError: Error, CustomStringConvertible { let description: String }

    static func keys(_ config: Config) throws -> (PasscodeHash, PasscodeHash?) {
        let p: PasscodeHash
        do { p = try PasscodeHash.fromConfig(config.passcode) } catch {
            throw KeyError(description: "passcode: \(error)")
        }
        var m: PasscodeHash?
        if !config.moderatorPasscode.isEmpty {
            do { m = try PasscodeHash.fromConfig(config.moderatorPasscode) } catch {
                throw KeyError(description: "moderator_passcode: \(error)")
            }
        }
        return (p, m)
    }

    /// A reloaded config: new passcodes apply to new registrations.
    func reload(_ new: Config) throws {
        loop.preconditionInEventLoop()
        let keys = try Self.keys(new)
        (presenterKey, moderatorKey) = keys
        config = new
    }

    static func now() -> Double { MonotonicClock.now() }

    // MARK: connections

    /// A new peer (a TCP connection, or a browser's WebSocket): says hello, starts the keep-alive.
    func accept(_ transport: PeerTransport) -> ConnectionID {
        let id = nextConnectionID
        nextConnectionID += 1
        let address = transport.remoteAddress
        let c = Connection(id: id, transport: transport, address: address, now: Self.now(),
                           keepAliveTimeout: config.keepaliveTimeout)
        connections[id] = c
        let hello = Hello(challenge: c.challenge,
                          pingIntervalMs: UInt32(c.keepAlive.interval * 1000), timeoutMs: UInt32(c.keepAlive.timeout * 1000),
                          presenter: presenterKey.parameters, moderator: moderatorKey?.parameters,
                          room: config.room, server: "lecternd \(lecternVersion)")
        send(.hello(hello), to: c, tag: 0)
        c.keepAliveTask = loop.scheduleRepeatedTask(initialDelay: .milliseconds(500), delay: .milliseconds(500)) { [weak self] _ in
            self?.tickKeepAlive(id)
        }
        logger.debug("connection \(id) from \(address)")
        return id
    }

    private func tickKeepAlive(_ id: ConnectionID) {
        guard let c = connections[id], !c.closing else { return }
        let now = Self.now()
        if c.deviceID == nil, now - c.connectedAt > ProtocolLimits.registerTimeoutSeconds {
            fail(c, tag: 0, .timedOut(seconds: ProtocolLimits.registerTimeoutSeconds), request: Command.error.rawValue)
            return
        }
        if c.statePending, c.transport.isWritable {
            c.statePending = false
            send(bytes: latestStateBytes, to: c)
        }
        switch c.keepAlive.poll(now: now, outboundPending: !c.transport.isWritable) {
        case .none: break
        case .sendPing(let n): send(.ping(nonce: n), to: c, tag: 0)
        case .timedOut:
            logger.info("connection \(id) (\(c.address)) silent for \(c.keepAlive.timeout) s: dropping it")
            fail(c, tag: 0, .timedOut(seconds: c.keepAlive.timeout), request: Command.error.rawValue)
        }
    }

    /// The TCP connection is gone (closed by either side).
    func closed(_ id: ConnectionID) {
        guard let c = connections.removeValue(forKey: id) else { return }
        c.keepAliveTask?.cancel()
        for (content, u) in c.uploads {
            u.writer.close()   // what arrived is stored; the upload resumes from it
            if writers[content] == id { writers[content] = nil }
        }
        if c.deviceID != nil {
            apply(meeting.disconnect(connection: id, now: Self.now()))
        }
        logger.debug("connection \(id) closed")
    }

    /// Bytes from a peer, in any slicing (a TCP read, or one WebSocket binary message).
    func received(_ id: ConnectionID, _ bytes: ByteBuffer) {
        guard let c = connections[id], !c.closing else { return }
        c.decoder.feed(bytes.readableBytesView)
        while !c.closing {
            let frame: WireFrame?
            do { frame = try c.decoder.next() } catch {
                let tag = FrameHeader.peek(Array(bytes.readableBytesView.prefix(8)))?.tag ?? 0
                fail(c, tag: tag, error, request: Command.error.rawValue)
                return
            }
            guard let frame else { return }
            c.keepAlive.noteReceived(now: Self.now())
            handle(frame, from: c)
        }
    }

    // MARK: sending

    private func send(_ m: Message, to c: Connection, tag: UInt16, device: UInt8? = nil) {
        guard !c.closing else { return }
        send(bytes: m.encode(tag: tag, deviceID: device ?? c.deviceID ?? 0xFF), to: c)
    }

    private func send(bytes: [UInt8], to c: Connection) {
        guard !c.closing else { return }
        c.transport.write(bytes)
        c.keepAlive.noteSent(now: Self.now())
    }

    /// Answers `request` with `error`; closes the connection when the error says so.
    private func fail(_ c: Connection, tag: UInt16, _ error: LecternError, request: UInt8) {
        send(.failure(replyingTo: request, error), to: c, tag: tag)
        if error.closesConnection { close(c) }
    }

    private func close(_ c: Connection) {
        guard !c.closing else { return }
        c.closing = true
        c.transport.close()
    }

    private func connection(of device: DeviceID) -> Connection? {
        meeting.connection(of: device).flatMap { connections[$0] }
    }

    /// Pushes the whole state to every registered device.
    func pushState() {
        revision += 1
        let snap = meeting.snapshot(room: config.room, revision: revision, screen: screenState, now: Self.now())
        let bytes = Message.state(snap).encode(tag: 0, deviceID: 0)   // once, for everyone
        latestStateBytes = bytes
        for c in connections.values where c.deviceID != nil {
            // A peer that doesn't read (a phone asleep on the Wi-Fi) gets the newest state
            // when it reads again, not every intermediate one piling up in memory.
            if c.transport.isWritable { send(bytes: bytes, to: c); c.statePending = false } else { c.statePending = true }
        }
    }

    func snapshot() -> Snapshot {
        meeting.snapshot(room: config.room, revision: revision, screen: screenState, now: Self.now())
    }

    /// What devices see: the clip while one plays over the slide, else the slide.
    var screenState: ScreenState {
        guard let c = clip else { return screen.state }
        let state: ClipState.Playback = c.status.state == .paused ? .paused : c.status.state == .stopped ? .stopped : .playing
        return ScreenState(content: c.content, page: 0, pageCount: 0, blank: .none,
                           clip: ClipState(state: state, positionMs: UInt32(max(0, c.status.position) * 1000),
                                           durationMs: UInt32(max(0, c.duration) * 1000), loop: c.loop,
                                           presentedFrames: UInt32(clamping: c.status.presented),
                                           droppedFrames: UInt32(clamping: c.status.dropped)))
    }

    // MARK: meeting events

    private func apply(_ events: [MeetingEvent]) {
        for e in events {
            switch e {
            case .floorGranted(let to, let reason, let by):
                if let c = connection(of: to) { send(.floorGranted(reason: reason, by: by), to: c, tag: 0) }
            case .floorWithdrawn(let from, let reason, let by):
                if let c = connection(of: from) { send(.floorWithdrawn(reason: reason, by: by), to: c, tag: 0) }
            case .screenToIdle:
                changeScreen({ _ in .idle }, done: { _ in })
            case .closeConnection(let id, let error):
                if let c = connections[id] {
                    send(.error(error), to: c, tag: 0)
                    close(c)
                }
            case .deviceLeft(let id):
                for k in owners.keys { owners[k]?.remove(id) }
            case .stateChanged:
                pushState()
                persist()
            }
        }
        scheduleExpiry()
    }

    private func scheduleExpiry() {
        expiryTask?.cancel()
        expiryTask = nil
        guard let deadline = meeting.nextDeadline else { return }
        let delay = max(0, deadline - Self.now())
        expiryTask = loop.scheduleTask(in: .milliseconds(Int64(delay * 1000) + 5)) { [weak self] in
            guard let self else { return }
            self.apply(self.meeting.expire(now: Self.now()))
        }
    }

    // MARK: the screen

    /// Runs screen changes one at a time: `next` computes the new model from the committed
    /// one when its turn comes; the stage shows it off the loop; then the model is
    /// committed, the state pushed, and `done` called on the loop.
    func changeScreen(_ next: @escaping (ScreenModel) throws -> ScreenModel, done: @escaping (Error?) -> Void) {
        // Anything else on the screen ends a clip first (the stage is busy until it stops).
        clip?.control.stop()
        screenOps.append { [self] in
            let target: ScreenModel
            do { target = try next(screen) } catch {
                done(error); finishScreenOp(); return
            }
            if target == screen { done(nil); finishScreenOp(); return }
            let scene = target.scene
            work.async { [self] in
                do {
                    try stage.show(scene)
                    loop.execute { [self] in
                        screen = target
                        persist()
                        done(nil)
                        pushState()
                        finishScreenOp()
                    }
                } catch {
                    loop.execute { [self] in done(error); finishScreenOp() }
                }
            }
        }
        if !screenBusy { runNextScreenOp() }
    }

    private func runNextScreenOp() {
        guard !screenOps.isEmpty else { screenBusy = false; return }
        screenBusy = true
        screenOps.removeFirst()()
    }

    private func finishScreenOp() { runNextScreenOp() }

    private func persist() {
        stateWriter?.save(PresentationState(screen: screen, meeting: meeting))
    }

    /// After a restart: the screen the stage already shows again, and the floor holder
    /// waiting (in the grace period) to resume with their token.
    func restore(_ saved: PresentationState, screen model: ScreenModel?) {
        loop.preconditionInEventLoop()
        if let model { screen = model }
        if let h = saved.holder, let token = saved.holderToken {
            meeting.restoreAbsentHolder(id: h.id, name: h.name, role: h.role == "moderator" ? .moderator : .presenter,
                                        resumeToken: token, now: Self.now())
            if let c = model?.content { owners[c.id, default: []].insert(h.id) }
            logger.info("waiting \(Int(config.gracePeriod)) s for '\(h.name)' to resume the floor")
        }
        scheduleExpiry()
        persist()
    }

    private static func lecternError(_ e: Error) -> LecternError {
        if let l = e as? LecternError { return l }
        if let c = e as? ContentError {
            switch c {
            case .pageOutOfRange(let p, let n): return .pageOutOfRange(page: UInt32(max(0, p)), pageCount: UInt32(n))
            default: return LecternError(.unreadableContent, message: c.description)
            }
        }
        return LecternError(.internalError, message: "Something went wrong on the appliance: \(e)")
    }

    // MARK: requests

    private func handle(_ frame: WireFrame, from c: Connection) {
        let h = frame.header
        let message: Message
        do { message = try Message.decode(header: h, body: frame.body, sentBy: .client) } catch {
            fail(c, tag: h.tag, error, request: h.command)
            return
        }
        let expected = c.deviceID ?? 0xFF
        if h.deviceID != expected {
            fail(c, tag: h.tag, .wrongDeviceID(sent: h.deviceID, expected: expected), request: h.command)
            return
        }
        switch message {
        case .ping(let n): send(.pong(nonce: n), to: c, tag: h.tag); return
        case .pong: return
        case .register(let r): register(r, from: c, tag: h.tag); return
        case .unregister:
            send(.unregisterOK, to: c, tag: h.tag)
            let events = c.deviceID != nil ? meeting.unregister(connection: c.id, now: Self.now()) : []
            c.deviceID = nil
            close(c)
            apply(events)
            return
        default: break
        }
        guard let me = c.deviceID else {
            fail(c, tag: h.tag, .notRegistered, request: h.command)
            return
        }
        let now = Self.now()
        let tag = h.tag
        do {
            switch message {
            case .stateRequest:
                send(.state(snapshot()), to: c, tag: tag)
            case .floorRequest:
                let r = try meeting.requestFloor(by: me, now: now)
                send(.floorAck(r.ack), to: c, tag: tag)
                apply(r.events)
            case .floorRelease:
                let ev = try meeting.releaseFloor(by: me, now: now)
                send(.ok, to: c, tag: tag)
                apply(ev)
            case .floorModerate(let action, let target):
                let ev = try meeting.moderate(action, target: target, by: me, now: now)
                send(.ok, to: c, tag: tag)
                apply(ev)
            case .control(let signal):
                switch try meeting.control(signal, by: me, now: now) {
                case .floor(let ev):
                    send(.controlOK, to: c, tag: tag)
                    apply(ev)
                case .screen(let s):
                    changeScreen({ m in try m.applying(s) }, done: { [self] e in
                        if let e { fail(c, tag: tag, Self.lecternError(e), request: Command.control.rawValue) }
                        else { send(.controlOK, to: c, tag: tag) }
                    })
                }
            case .present(let content, let page):
                try present(content, page: page, by: me, c: c, tag: tag)
            case .clear:
                try meeting.checkCanDrive(me)
                changeScreen({ _ in .idle }, done: { [self] e in
                    if let e { fail(c, tag: tag, Self.lecternError(e), request: Command.clear.rawValue) }
                    else { send(.ok, to: c, tag: tag) }
                })
            case .clipPlay(let content, let loop):
                try playClip(content, looping: loop, by: me, c: c, tag: tag)
            case .clipPause, .clipResume, .clipSeek, .clipStop:
                try meeting.checkCanDrive(me)
                guard let session = clip else { throw LecternError.noClip }
                switch message {
                case .clipPause: session.control.pause(); send(.clipPauseOK, to: c, tag: tag)
                case .clipResume: session.control.resume(); send(.clipResumeOK, to: c, tag: tag)
                case .clipStop: session.control.stop(); send(.clipStopOK, to: c, tag: tag)
                case .clipSeek(let ms):
                    let durationMs = UInt64(max(0, session.duration) * 1000)
                    guard UInt64(ms) <= durationMs else {
                        throw LecternError(.seekOutOfRange, detail: durationMs,
                                           message: String(format: "The clip is only %.1f s long.", session.duration))
                    }
                    session.control.seek(to: Double(ms) / 1000)
                    send(.clipSeekOK, to: c, tag: tag)
                default: break
                }
            case .uploadBegin(let b): try uploadBegin(b, c: c, me: me, tag: tag)
            case .uploadChunk(let ch): try uploadChunk(ch, c: c, tag: tag)
            case .uploadFinish(let content): try uploadFinish(content, c: c, me: me, tag: tag)
            case .screenshotRequest(let mw, let mh): screenshot(maxWidth: Int(mw), maxHeight: Int(mh), c: c, tag: tag)
            case .pagePreview(let p): try pagePreview(p, me: me, c: c, tag: tag)
            default:
                throw LecternError.unknownCommand(h.command)
            }
        } catch {
            fail(c, tag: tag, Self.lecternError(error), request: h.command)
        }
    }

    private func register(_ r: RegisterRequest, from c: Connection, tag: UInt16) {
        let req = Command.register.rawValue
        guard c.deviceID == nil else { return fail(c, tag: tag, .alreadyRegistered, request: req) }
        guard r.version == lecternProtocolVersion else {
            return fail(c, tag: tag, .unsupportedVersion(client: r.version), request: req)
        }
        guard let key = r.role == .presenter ? presenterKey : moderatorKey else {
            return fail(c, tag: tag, .roleUnavailable(r.role), request: req)
        }
        let now = Self.now()
        let tkey = AuthThrottle.key(address: c.address, role: r.role)
        if case .wait(let s) = throttle.check(tkey, now: now) {
            logger.warning("register from \(c.address) as \(r.role) throttled: \(Int(s.rounded(.up))) s to wait")
            return fail(c, tag: tag, .tooManyAttempts(retryAfter: s), request: req)
        }
        guard RegisterProof.verify(r, challenge: c.challenge, key: key) else {
            throttle.recordFailure(tkey, now: now)
            logger.warning("wrong \(r.role) passcode from \(c.address) (device '\(r.name)')")
            return fail(c, tag: tag, .wrongPasscode, request: req)
        }
        throttle.recordSuccess(tkey, now: now)
        do {
            let reg = try meeting.register(connection: c.id, name: r.name, role: r.role, resumeToken: r.resumeToken, now: now)
            c.deviceID = reg.deviceID
            send(reg.reply, to: c, tag: tag)
            logger.info("\(r.role) '\(r.name)' registered as \(reg.deviceID) from \(c.address)\(reg.resumed ? " (resumed)" : "")")
            apply(reg.events)
        } catch {
            fail(c, tag: tag, error, request: req)
        }
    }

    private func present(_ content: ContentID, page: UInt32, by me: DeviceID, c: Connection, tag: UInt16) throws {
        try meeting.checkCanDrive(me)
        guard let item = store.item(content.hex) else { throw LecternError.unknownContent }
        try meeting.checkCanPresent(me, isUploader: owners[content]?.contains(me) == true)
        guard item.kind == .pdf else { throw LecternError.wrongKind(is: .clip) }
        let p = max(1, Int(page))
        guard p <= item.pages else { throw LecternError.pageOutOfRange(page: UInt32(p), pageCount: UInt32(item.pages)) }
        let model = ScreenModel(content: ContentSnapshot(id: content, name: item.name, kind: .pdf),
                                page: p, pageCount: item.pages, blank: .none)
        changeScreen({ _ in model }, done: { [self] e in
            if let e { fail(c, tag: tag, Self.lecternError(e), request: Command.present.rawValue) }
            else { send(.presentOK, to: c, tag: tag) }
        })
    }

    // MARK: clips

    private func playClip(_ content: ContentID, looping: Bool, by me: DeviceID, c: Connection, tag: UInt16) throws {
        try meeting.checkCanDrive(me)
        guard let item = store.item(content.hex) else { throw LecternError.unknownContent }
        try meeting.checkCanPresent(me, isUploader: owners[content]?.contains(me) == true)
        guard item.kind == .clip else { throw LecternError.wrongKind(is: .pdf) }
        clip?.control.stop()
        clipSerial += 1
        let serial = clipSerial
        let path = store.path(of: content.hex)
        let snapshot = ContentSnapshot(id: content, name: item.name, kind: .clip)
        work.async { [self] in
            let decoder: ClipDecoder
            do { decoder = try ClipDecoder(path: path) } catch {
                loop.execute { [self] in fail(c, tag: tag, LecternError(.unreadableContent, message: "\(error)"), request: Command.clipPlay.rawValue) }
                return
            }
            let control = PlaybackControl { [weak self] status in
                self?.loop.execute { self?.clipChanged(serial, status) }
            }
            loop.execute { [self] in
                guard serial == clipSerial else { decoder.close(); return }   // superseded meanwhile
                var status = PlaybackStatus()
                status.duration = decoder.info.duration
                status.loop = looping
                clip = ClipSession(control: control, content: snapshot, duration: decoder.info.duration, loop: looping, status: status)
                send(.clipPlayOK, to: c, tag: tag)
                pushState()
                logger.info("playing \(item.name) (\(decoder.info.codec) \(decoder.info.width)x\(decoder.info.height), \(String(format: "%.1f", decoder.info.duration)) s)")
                work.async { [self] in
                    let result = stage.play(decoder, loop: looping, control: control)
                    loop.execute { [self] in clipEnded(serial, result) }
                }
            }
        }
    }

    private func clipChanged(_ serial: Int, _ status: PlaybackStatus) {
        guard serial == clipSerial, var c = clip else { return }
        c.status = status
        clip = c
        pushState()
    }

    private func clipEnded(_ serial: Int, _ result: PlaybackResult) {
        guard serial == clipSerial else { return }
        switch result.end {
        case .failed(let why): logger.warning("clip ended early: \(why)")
        default: logger.info("clip \(result.end == .ended ? "ended" : "stopped"): \(result.status.presented) frames shown, \(result.status.dropped) dropped")
        }
        clip = nil
        pushState()
    }

    // MARK: uploads

    private func uploadBegin(_ b: UploadBegin, c: Connection, me: DeviceID, tag: UInt16) throws {
        let hex = b.content.hex
        let maxSize = UInt64(config.maxUploadBytes), quota = UInt64(config.diskQuotaBytes)
        if let item = store.item(hex) {
            // Already stored: with a valid possession proof it is not sent again.
            try UploadSession.checkBegin(b, maxFileSize: maxSize, quota: quota, freeQuota: .max)
            if let proof = b.proof {
                let path = store.path(of: hex), challenge = c.challenge
                work.async { [self] in
                    let expected = try? PossessionProof.compute(challenge: challenge, file: Data(contentsOf: URL(fileURLWithPath: path)))
                    loop.execute { [self] in
                        if let expected, PossessionProof.matches(proof, expected: expected) {
                            owners[b.content, default: []].insert(me)
                            send(.uploadReady(UploadReady(content: b.content, status: .stored, offset: UInt64(item.size),
                                                          kind: item.kind == .pdf ? .pdf : .clip, pageCount: UInt32(item.pages),
                                                          durationMs: 0)), to: c, tag: tag)
                        } else {
                            startUpload(b, c: c, tag: tag, from: 0)
                        }
                    }
                }
                return
            }
            startUpload(b, c: c, tag: tag, from: 0)
            return
        }
        parts[b.content]?.waitForQueued()   // the part file's size counts what is still queued
        let stored = uploadArea.storedBytes(hex)
        let free = quota > usedBytes ? quota - usedBytes : 0
        try UploadSession.checkBegin(b, maxFileSize: maxSize, quota: quota, freeQuota: free, alreadyStored: stored)
        startUpload(b, c: c, tag: tag, from: min(stored, b.size))
    }

    private func startUpload(_ b: UploadBegin, c: Connection, tag: UInt16, from offset: UInt64) {
        let hex = b.content.hex
        // The newest begin for a file takes over its partial file (a device that reconnected).
        if let other = writers[b.content], other != c.id, let oc = connections[other], var u = oc.uploads[b.content] {
            u.failed = true
            oc.uploads[b.content] = u
        }
        // Whoever wrote this file before finishes what it queued and lets go of it first.
        parts.removeValue(forKey: b.content)?.closeAndWait()
        c.uploads[b.content]?.writer.closeAndWait()
        let before = uploadArea.storedBytes(hex)
        do {
            let handle = try uploadArea.open(hex, at: offset)
            if before > offset { usedBytes -= min(usedBytes, before - offset) }
            let writer = PartWriter(handle: handle, hashing: offset == 0, label: String(hex.prefix(12)))
            c.uploads[b.content] = Upload(session: UploadSession(begin: b, alreadyStored: offset), writer: writer, beginTag: tag)
            parts[b.content] = writer
            writers[b.content] = c.id
            send(.uploadReady(UploadReady(content: b.content, status: .sendFrom, offset: offset)), to: c, tag: tag)
        } catch {
            fail(c, tag: tag, LecternError(.storageFailed, message: "The appliance can't store the file: \(error)"), request: Command.uploadBegin.rawValue)
        }
    }

    private func uploadChunk(_ ch: UploadChunk, c: Connection, tag: UInt16) throws {
        guard var u = c.uploads[ch.content] else { throw LecternError.noUpload }
        if u.failed { return }
        do {
            let quota = UInt64(config.diskQuotaBytes)
            if usedBytes + UInt64(ch.data.count) > quota { throw LecternError.quotaFull(quota: quota) }
            if let e = u.writer.failure { throw LecternError(.storageFailed, message: "The appliance can't store the file: \(e)") }
            let progress = try u.session.accept(offset: ch.offset, count: ch.data.count)
            // upload-progress says what is in the file: sent once the chunk is written.
            let content = ch.content, beginTag = u.beginTag, id = c.id
            u.writer.append(ch.data, written: progress.map { p in { [weak self] in
                self?.loop.execute { [weak self] in
                    guard let self, let c = connections[id] else { return }
                    send(.uploadProgress(content: content, stored: p), to: c, tag: beginTag)
                }
            } })
            usedBytes += UInt64(ch.data.count)
            c.uploads[ch.content] = u
            if !c.readingPaused && u.writer.queuedBytes > PartWriter.highWater {
                // The disk is slower than the network: stop reading until the queue drains.
                c.readingPaused = true
                c.transport.setReading(false)
                u.writer.onDrained { [weak self] in
                    self?.loop.execute { [weak self] in
                        guard let c = self?.connections[id], c.readingPaused else { return }
                        c.readingPaused = false
                        c.transport.setReading(true)
                    }
                }
            }
        } catch {
            u.failed = true
            c.uploads[ch.content] = u
            throw error
        }
    }

    private func uploadFinish(_ content: ContentID, c: Connection, me: DeviceID, tag: UInt16) throws {
        guard let u = c.uploads[content], !u.failed || u.session.isComplete else { throw LecternError.noUpload }
        try u.session.checkFinish()
        c.uploads[content] = nil
        if writers[content] == c.id { writers[content] = nil }
        if parts[content] === u.writer { parts[content] = nil }
        let hex = content.hex, name = u.session.name, wanted = u.session.kind
        let uploader = meeting.devices[me]?.name ?? ""
        let size = u.session.size
        u.writer.finish { [self] written in
            var result: Result<ContentStore.Item, LecternError>
            do {
                let actual = try written.get()?.hex ?? uploadArea.sha256(hex)
                if actual != hex {
                    uploadArea.remove(hex)
                    result = .failure(.hashMismatch)
                } else if let existing = store.item(hex) {
                    uploadArea.remove(hex)   // the store already has it: keep one copy
                    result = .success(existing)
                } else {
                    let kind = try ContentStore.kind(ofFile: uploadArea.partPath(hex))
                    if let wanted, (wanted == .pdf) != (kind == .pdf) {
                        uploadArea.remove(hex)
                        result = .failure(LecternError(.unsupportedFileType, message: "The file is not a \(wanted == .pdf ? "PDF" : "clip")."))
                    } else {
                        if kind == .clip { _ = try ClipProbe.probe(path: uploadArea.partPath(hex)) }   // refuses what can't play, saying why
                        result = .success(try store.adopt(tmpFile: uploadArea.partPath(hex), id: hex, name: name, uploader: uploader))
                    }
                }
            } catch let e as ContentError {
                uploadArea.remove(hex)
                let code: ErrorCode = e == .notAPDF ? .unsupportedFileType : .unreadableContent
                let message = e == .notAPDF ? "Only PDF slides and H.264 clips can be shown." : e.description
                result = .failure(LecternError(code, message: message))
            } catch let e as LecternError {
                result = .failure(e)
            } catch {
                result = .failure(LecternError(.storageFailed, message: "The appliance can't store the file: \(error)"))
            }
            loop.execute { [self] in
                switch result {
                case .success(let item):
                    owners[content, default: []].insert(me)
                    logger.info("stored \(item.name) (\(item.size) bytes, \(item.kind)) from device \(me)")
                    send(.uploadStored(UploadStored(content: content, kind: item.kind == .pdf ? .pdf : .clip, size: size,
                                                    pageCount: UInt32(item.pages), durationMs: 0)), to: c, tag: tag)
                case .failure(let e):
                    if e.code == .hashMismatch || e.code == .unsupportedFileType || e.code == .unreadableContent {
                        usedBytes -= min(usedBytes, size)
                    }
                    logger.warning("upload \(name) from device \(me) refused: \(e.message)")
                    fail(c, tag: tag, e, request: Command.uploadFinish.rawValue)
                }
            }
        }
    }

    // MARK: screenshot

    /// The output's frame, exactly, or scaled down like a page preview (the web remote's
    /// live picture on a phone needs a tenth of the pixels).
    private func screenshot(maxWidth: Int, maxHeight: Int, c: Connection, tag: UInt16) {
        work.async { [self] in
            let full = stage.screenshot()
            let size = Fit.previewSize(width: full.width, height: full.height, maxWidth: maxWidth, maxHeight: maxHeight)
            let frame = full.scaled(width: size.width, height: size.height)
            let png = [UInt8](PNG.encode(frame))
            loop.execute { [self] in
                for piece in ScreenshotChunk.split(png: png, width: UInt32(frame.width), height: UInt32(frame.height)) {
                    send(.screenshotData(piece), to: c, tag: tag)
                }
            }
        }
    }

    // MARK: page previews

    /// A page of an upload as the output would show it, small (the web remote's "next
    /// slide"). For those who may present the file: its uploaders and the moderator —
    /// the audience sees slides when they are shown, not before.
    private func pagePreview(_ p: PagePreviewRequest, me: DeviceID, c: Connection, tag: UInt16) throws {
        guard let item = store.item(p.content.hex) else { throw LecternError.unknownContent }
        if meeting.devices[me]?.role != .moderator && owners[p.content]?.contains(me) != true {
            throw LecternError(.notYourContent, message: "Only the person who uploaded it or the moderator can preview its pages.")
        }
        guard item.kind == .pdf else {
            throw LecternError(.wrongKind, detail: UInt64(ContentKind.clip.rawValue), message: "That is a clip — only PDF pages have previews.")
        }
        let page = max(1, Int(p.page))
        guard page <= item.pages else { throw LecternError.pageOutOfRange(page: UInt32(page), pageCount: UInt32(item.pages)) }
        let hex = p.content.hex
        work.async { [self] in
            let compositor = stage.compositor
            let size = Fit.previewSize(width: compositor.settings.width, height: compositor.settings.height,
                                       maxWidth: Int(p.maxWidth), maxHeight: Int(p.maxHeight))
            let result: Result<[ScreenshotChunk], LecternError>
            do {
                let frame = try compositor.preview(content: hex, page: page, width: size.width, height: size.height)
                result = .success(ScreenshotChunk.split(png: [UInt8](PNG.encode(frame)), width: UInt32(frame.width), height: UInt32(frame.height)))
            } catch {
                result = .failure(Self.lecternError(error))
            }
            loop.execute { [self] in
                switch result {
                case .success(let pieces): for piece in pieces { send(.screenshotData(piece), to: c, tag: tag) }
                case .failure(let e): fail(c, tag: tag, e, request: Command.pagePreview.rawValue)
                }
            }
        }
    }
}

/// The version the service reports in hello.
public let lecternVersion = "0.1.0"
