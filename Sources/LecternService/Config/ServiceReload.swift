import Dispatch
import LecternModel

extension Service {
    /// SIGHUP: a valid new config applies (passcodes for new registrations, room name,
    /// limits, the TLS certificate for new connections: `TLSServing`); an invalid one, or a
    /// certificate that can't be read, is refused and the old one kept. Returns the problems.
    public func reload(configPath: String) -> [ConfigProblem] {
        let result: ConfigFile.Result
        do { result = try ConfigFile.load(path: configPath) } catch let e as ConfigFile.Invalid {
            logger.error("config reload refused, keeping the running config: \(e.description)")
            return e.problems
        } catch {
            logger.error("config reload refused: \(error)")
            return [ConfigProblem(line: nil, "\(error)")]
        }
        let old = config
        // What can't change while running keeps its running value, with a word in the log.
        let outcome = ConfigReload.apply(result.config, over: old)
        for w in outcome.warnings { logger.warning("config reload: \(w.message)") }
        let new = outcome.config
        // The certificate is read again (a renewed one in the same files, or new paths): a
        // file that can't be read refuses the whole reload, the old certificate kept.
        var identity: TLSIdentity?
        if tls != nil {
            do {
                identity = try TLSIdentity.load(
                    certificate: new.tlsCertificate, key: new.tlsKey, dataDir: new.dataDir, room: new.room,
                    addresses: NetworkAddresses.current())
            } catch {
                logger.error("config reload refused, keeping the running config and certificate: \(error)")
                return [ConfigProblem(line: nil, "\(error)")]
            }
        }
        let room = self.room
        // The new passcodes' keys are derived off the room's loop; this (SIGHUP's) thread
        // waits for them, so that once reloaded, new registrations prove the new passcodes.
        let keysInForce = DispatchSemaphore(value: 0)
        do {
            try room.loop.submit { try room.reload(new) { keysInForce.signal() } }.wait()
        } catch {
            logger.error("config reload refused: \(error)")
            return [ConfigProblem(line: nil, "\(error)")]
        }
        if keysInForce.wait(timeout: .now() + 30) == .timedOut {
            logger.warning("config reload: the new passcodes' keys took more than 30 s to derive; they apply once derived")
        }
        config = new
        let before = tlsIdentity?.fingerprint
        if let tls, let identity {
            do {
                try tls.replace(identity: identity, room: new.room)
                if identity.fingerprint != before {
                    logger.info("TLS: new connections get \(identity.source), fingerprint \(identity.fingerprint.hex); connections made before keep theirs")
                }
            } catch {
                logger.error("TLS: keeping the certificate in force: \(error)")
            }
        }
        // The idle screen shows the room, the fingerprint, the Wi-Fi and the branding: drawn again when one changed.
        let idleChanged =
            new.room != old.room || tlsIdentity?.fingerprint != before || new.wifiSSID != old.wifiSSID || new.wifiPassword != old.wifiPassword
            || new.accent != old.accent || new.logo != old.logo || new.backgroundImage != old.backgroundImage
        if idleChanged { try? stage.setIdle(idleScreen(port: port, room: new.room)) }
        logger.info("config reloaded from \(configPath)")
        return []
    }
}
