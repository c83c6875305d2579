import LecternProtocol

/// Registration: version, role, the passcode proof behind the throttle, the floor's
/// register (a resume gets its device and floor back); unregister.
extension RoomCore {
    mutating func register(_ r: RegisterRequest, from p: Peer, tag: UInt16) {
        let req = Command.register.rawValue
        guard !p.isRegistered else { return fail(p, tag: tag, .alreadyRegistered, request: req) }
        guard r.version == lecternProtocolVersion else {
            return fail(p, tag: tag, .unsupportedVersion(client: r.version), request: req)
        }
        if r.role == .viewer { return registerViewer(r, from: p, tag: tag) }
        guard let key = r.role == .presenter ? keys.presenter : keys.moderator else {
            return fail(p, tag: tag, .roleUnavailable(r.role), request: req)
        }
        let tkey = AuthThrottle.key(address: p.address, role: r.role)
        if case .wait(let s) = throttle.attempt(tkey, role: r.role, now: now) {
            log(.warning, "register from \(p.address) as \(r.role) throttled: \(Int(s.rounded(.up))) s to wait")
            return fail(p, tag: tag, .tooManyAttempts(retryAfter: s), request: req)
        }
        guard RegisterProof.verify(r, challenge: p.challenge, key: key) else {
            throttle.recordFailure(tkey, role: r.role, now: now)
            log(.warning, "wrong \(r.role) passcode from \(p.address) (device '\(r.name)')")
            return fail(p, tag: tag, .wrongPasscode, request: req)
        }
        if r.role == .presenter, let left = removals.remaining(address: p.address, name: r.name, now: now) {
            log(.info, "presenter '\(r.name)' from \(p.address) refused: removed by the moderator \(Int(left.rounded(.up))) s ago at most")
            return fail(p, tag: tag, .removedCoolingDown(retryAfter: left), request: req)
        }
        throttle.recordSuccess(tkey, now: now)
        do {
            // A copy of the generator draws while the floor changes (put back at once).
            var random = self.random
            let registered = Result { () throws(LecternError) in
                try floor.register(connection: p.id, name: r.name, role: r.role, resumeToken: r.resumeToken, now: now, newToken: { random.token() })
            }
            self.random = random
            let reg = try registered.get()
            peers[p.id]?.deviceID = reg.deviceID
            emit(.registered(p.id))
            screenCodeRegistered(p.id)
            send(reg.reply, to: p, tag: tag)
            log(.info, "\(r.role) '\(r.name)' registered as \(reg.deviceID) from \(p.address)\(reg.resumed ? " (resumed)" : "")")
            apply(reg.events)
            // Back too late: its floor or pane ran out while it was away; told why, once,
            // after the state that shows it (§9.6).
            if !reg.resumed, let lost = awayHolders.claim(r.resumeToken) { tellExpired(lost, to: p, name: r.name) }
        } catch {
            fail(p, tag: tag, error, request: req)
        }
    }

    mutating func unregister(_ p: Peer, tag: UInt16) {
        send(.unregisterOK, to: p, tag: tag)
        let events = p.deviceID != nil ? floor.unregister(connection: p.id, now: now) : []
        peers[p.id]?.deviceID = nil
        viewerLeft(p)
        close(p)
        apply(events)
    }
}
