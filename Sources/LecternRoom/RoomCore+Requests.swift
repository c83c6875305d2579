import LecternProtocol

/// The request switch: decodes a frame, checks the device byte and registration, and
/// hands each request to the part of the room that answers it.
extension RoomCore {
    mutating func received(_ frame: WireFrame, from p: Peer) {
        peers[p.id]?.keepAlive.noteReceived(now: now)
        let h = frame.header
        let message: Message
        do { message = try Message.decode(header: h, body: frame.body, sentBy: .client) } catch {
            return fail(p, tag: h.tag, error, request: h.command)
        }
        let expected = p.deviceID ?? ProtocolLimits.unregisteredID
        if case .register = message, p.isRegistered {   // before the device byte: §6.2 sends register with 0xFF
            return fail(p, tag: h.tag, .alreadyRegistered, request: h.command)
        }
        guard h.deviceID == expected else {
            return fail(p, tag: h.tag, .wrongDeviceID(sent: h.deviceID, expected: expected), request: h.command)
        }
        switch message {
        case .ping(let n): return send(.pong(nonce: n), to: p, tag: h.tag)
        case .pong: return
        case .register(let r): return register(r, from: p, tag: h.tag)
        case .unregister: return unregister(p, tag: h.tag)
        default: break
        }
        if let v = p.viewer {
            do { try viewerRequest(message, command: h.command, from: p, viewer: v, tag: h.tag) } catch {
                fail(p, tag: h.tag, LecternError(mapping: error), request: h.command)
            }
            return
        }
        guard let me = p.deviceID else {
            return fail(p, tag: h.tag, .notRegistered, request: h.command)
        }
        do {
            try request(message, command: h.command, from: p, device: me, tag: h.tag)
        } catch {
            fail(p, tag: h.tag, LecternError(mapping: error), request: h.command)
        }
    }

    private mutating func request(_ message: Message, command: UInt8, from p: Peer, device me: DeviceID, tag: UInt16) throws {
        if try layoutRequest(message, by: me, peer: p, tag: tag) { return }
        switch message {
        case .stateRequest:
            send(.state(snapshot(now: now)), to: p, tag: tag)
        case .floorRequest:
            let r = try floor.requestFloor(by: me, now: now)
            send(.floorAck(r.ack), to: p, tag: tag)
            apply(r.events)
        case .floorRelease:
            let ev = try floor.releaseFloor(by: me, now: now)
            send(.ok, to: p, tag: tag)
            apply(ev)
        case .floorModerate(let action, let target):
            // Who is removed, for the cool-down: their connection's address and name.
            let removed =
                action == .kick && floor.role(of: target) == .presenter
                ? floor.connection(of: target).flatMap(live).map { ($0.address, floor.name(of: target) ?? "") } : nil
            let ev = try floor.moderate(action, target: target, by: me, now: now)
            if let (address, name) = removed { removals.removed(address: address, name: name, now: now) }
            send(.ok, to: p, tag: tag)
            apply(ev)
        case .control(.transitions(let ms)):
            try floor.checkCanDrive(me)
            setFallbackFade(ms, by: p, tag: tag)
        case .control(let signal):
            switch try floor.control(signal, by: me, now: now) {
            case .floor(let ev):
                send(.controlOK, to: p, tag: tag)
                apply(ev)
            case .screen(let s):
                changeScreen(.signal(wrapped(s)), reply: ScreenReply(peer: p.id, tag: tag, request: .control, ok: .controlOK))
            }
        case .present(let content, let page):
            try present(content, page: page, by: me, peer: p, tag: tag)
        case .clear:
            try floor.checkCanDrive(me)
            changeScreen(.idle, reply: ScreenReply(peer: p.id, tag: tag, request: .clear, ok: .ok))
        case .clipPlay(let content, let loop):
            try playClip(content, looping: loop, by: me, peer: p, tag: tag)
        case .clipPause, .clipResume, .clipSeek, .clipStop, .clipLoop:
            try steerClip(message, by: me, peer: p, tag: tag)
        case .soundSet(let s):
            try setSound(s, by: me, peer: p, tag: tag)
        case .recordRequest: try recordRequest(from: p, device: me, tag: tag)
        case .wallView: declareWall(p, tag: tag)
        case .share(let m): try shareRequest(m, by: me, peer: p, tag: tag)
        case .uploadBegin(let b): try uploadBegin(b, peer: p, device: me, tag: tag)
        case .uploadChunk(let ch): try uploadChunk(ch, peer: p)
        case .uploadFinish(let content): try uploadFinish(content, peer: p, device: me, tag: tag)
        case .conversionCancel(let content): try conversionCancel(content, by: me, peer: p, tag: tag)
        case .imagesDeck(let d): try imagesDeck(d, by: me, peer: p, tag: tag)
        case .screenshotRequest(let mw, let mh, let jpeg):
            try takePictureSlot(p, tag: tag, maxWidth: Int(mw), maxHeight: Int(mh))
            emit(.screenshot(p.id, tag: tag, maxWidth: Int(mw), maxHeight: Int(mh), jpeg: jpeg))
        case .pagePreview(let r): try pagePreview(r, by: me, peer: p, tag: tag)
        case .ink(let m): try inkRequest(m, command: command, from: p, device: me, tag: tag)
        case .notesRequest(let r): try notesRequest(r, by: me, peer: p, tag: tag)
        case .notesEdit(let e): try notesEdit(e, by: me, peer: p, tag: tag)
        case .notesFile(let content, let file): try notesFile(content, file, by: me, peer: p, tag: tag)
        case .notesLayout(let content, let layout): try notesLayout(content, layout, by: me, peer: p, tag: tag)
        case .timer(let c): try timerCommand(c, by: me, peer: p, tag: tag)
        case .gotoLabel(let label): try gotoLabel(label, by: me, peer: p, tag: tag)
        case .audienceFetch(let f): try audienceFetch(f, privileged: true, peer: p, tag: tag)
        case .pollAsk, .pollAnswer, .pollClose, .pollShow, .questionAsk, .questionVote, .questionMark, .audienceSet, .pollPrepare, .pollAskPrepared:
            try audienceRequest(message, from: p, voter: voter(of: me), name: floor.devices[me]?.name ?? "", tag: tag)
        default:
            throw LecternError.unknownCommand(command)
        }
    }
}
