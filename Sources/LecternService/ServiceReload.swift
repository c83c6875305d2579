import LecternCore

extension Service {
    /// SIGHUP: a valid new config applies (passcodes for new registrations, room name,
    /// limits); an invalid one is refused and the old one kept. Returns the problems.
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
        let room = self.room!
        do {
            try room.loop.submit { try room.reload(new) }.wait()
        } catch {
            logger.error("config reload refused: \(error)")
            return [ConfigProblem(line: nil, "\(error)")]
        }
        config = new
        if new.room != old.room { try? stage.setIdle(idleScreen(port: port, room: new.room)) }
        logger.info("config reloaded from \(configPath)")
        return []
    }
}
