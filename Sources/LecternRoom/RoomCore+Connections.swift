import LecternProtocol

/// Connections: hello, keep-alive, writability, closing; sending and failing.
extension RoomCore {
    mutating func opened(_ id: ConnectionID, address: String, challenge: [UInt8]) {
        let p = Peer(id: id, address: address, challenge: challenge, now: now, keepAliveTimeout: config.keepaliveTimeout)
        peers[id] = p
        let hello = Hello(
            challenge: challenge,
            pingIntervalMs: UInt32(p.keepAlive.interval * 1000), timeoutMs: UInt32(p.keepAlive.timeout * 1000),
            presenter: keys.presenter.parameters, moderator: keys.moderator?.parameters,
            room: config.room, server: serverName)
        send(.hello(hello), to: p, tag: 0)
        log(.debug, "connection \(id) from \(address)")
    }

    mutating func closed(_ id: ConnectionID) {
        guard var p = peers.removeValue(forKey: id) else { return }
        picturesDrained(p, force: true)
        p.pictureBytesSent = 0   // drained above; kept only for the pictures still being made
        if !p.pictures.isEmpty { pictures.gone[id] = p }
        uploadsClosed(of: p)
        conversions.forget(id)
        if p.deviceID != nil {
            // A pane's driver keeps its place (and its pane) for the grace period, as the holder does.
            apply(floor.disconnect(connection: id, now: now, keep: { [wall] in wall.pane(drivenBy: $0) != nil }))
            shareConnectionClosed(id)
        }
        viewerLeft(p)
        log(.debug, "connection \(id) closed")
    }

    /// Over its output budget the peer is not read from (it can't add to what waits for
    /// it); back under, it is read again and gets the newest state it missed.
    mutating func writable(_ id: ConnectionID, _ on: Bool) {
        guard live(id) != nil else { return }
        peers[id]!.writable = on
        if on { peers[id]!.unwritableSince = nil } else if peers[id]!.unwritableSince == nil { peers[id]!.unwritableSince = now }
        let p = peers[id]!
        updateReading(p)
        if on {
            picturesDrained(p, force: true)
            sendPendingState(p)
        }
    }

    /// Reads from the peer unless an upload waits for the disk or its output is over budget.
    mutating func updateReading(_ peer: Peer) {
        guard let p = live(peer.id) else { return }
        let want = p.readingPausedBy == nil && p.writable
        guard want != p.reading else { return }
        peers[p.id]?.reading = want
        emit(.setReading(p.id, want))
    }

    /// Every half second: the register deadline and the keep-alive of every connection.
    mutating func tick() {
        if clips.save.due(now: now) { persist() }
        for id in peers.keys.sorted() {
            // Each step below may change or close the peer: read it again before each.
            guard let p = live(id) else { continue }
            if !p.isRegistered, now - p.connectedAt > ProtocolLimits.registerTimeoutSeconds {
                fail(p, tag: 0, .timedOut(seconds: ProtocolLimits.registerTimeoutSeconds), request: Command.error.rawValue)
                continue
            }
            if let since = p.unwritableSince, now - since >= ProtocolLimits.overBudgetSeconds {
                // It doesn't read what it is sent: nothing more can reach it, not even an error.
                log(.info, "connection \(p.id) (\(p.address)) not reading for \(Int(ProtocolLimits.overBudgetSeconds)) s: dropping it")
                close(p)
                continue
            }
            sendPendingState(p)
            picturesDrained(p)
            guard let p = live(id) else { continue }
            // The record being sent to it is output waiting too (its pong waits behind it).
            let sendingRecord = recordMaking.map { $0.sending && $0.peer == p.id } ?? false
            switch peers[id]!.keepAlive.poll(now: now, outboundPending: !p.writable || sendingRecord) {
            case .none: break
            case .sendPing(let n): send(.ping(nonce: n), to: p, tag: 0)
            case .timedOut:
                log(.info, "connection \(p.id) (\(p.address)) silent for \(p.keepAlive.timeout) s: dropping it")
                fail(p, tag: 0, .timedOut(seconds: p.keepAlive.timeout), request: Command.error.rawValue)
            }
        }
    }

    // MARK: lookups

    /// The connection, unless it is gone or being closed.
    func live(_ id: ConnectionID) -> Peer? {
        guard let p = peers[id], !p.closing else { return nil }
        return p
    }

    func peer(of device: DeviceID) -> Peer? {
        floor.connection(of: device).flatMap { live($0) }
    }

    // MARK: sending

    mutating func send(_ m: Message, to p: Peer, tag: UInt16, device: UInt8? = nil) {
        send(bytes: m.encode(tag: tag, deviceID: device ?? peers[p.id]?.deviceID ?? ProtocolLimits.unregisteredID), to: p)
    }

    mutating func send(bytes: [UInt8], to p: Peer) {
        guard live(p.id) != nil else { return }
        emit(.send(p.id, bytes))
        peers[p.id]!.keepAlive.noteSent(now: now)
    }

    mutating func sendPieces(_ pieces: [ScreenshotChunk], to p: Peer, tag: UInt16) {
        for piece in pieces { send(.screenshotData(piece), to: p, tag: tag) }
    }

    /// Answers `request` with `error`; closes the connection when the error says so, or
    /// when an unregistered peer has earned a few.
    mutating func fail(_ p: Peer, tag: UInt16, _ error: LecternError, request: UInt8) {
        var error = error
        if let live = live(p.id), !live.isRegistered {
            peers[p.id]!.unregisteredErrors += 1
            // The error's flag says the connection closes (C49: clients go by the flag).
            if live.unregisteredErrors + 1 >= ProtocolLimits.unregisteredErrorLimit { error.closesConnection = true }
        }
        send(.failure(replyingTo: request, error), to: p, tag: tag)
        if error.closesConnection { close(p) }
    }

    mutating func close(_ p: Peer) {
        guard live(p.id) != nil else { return }
        peers[p.id]!.closing = true
        emit(.close(p.id))
    }
}
