import LecternModel

/// The reload policy (SIGHUP): what a running lecternd takes from a new, valid config.
/// Every key the table (ConfigTable.swift) marks `.live` applies at once — passcodes (for
/// new registrations), the room name, the limits, the TLS certificate (`tls_certificate`,
/// `tls_key`: read again, for new connections); every key marked `.restart` keeps its
/// running value, with a warning for the admin: one per top-level key, one per section
/// (the display is opened once, at start).
public enum ConfigReload {
    public struct Outcome: Equatable, Sendable {
        /// The config to apply: the new one, with the running value of every key that
        /// can't change while running.
        public var config: Config
        /// One per key (or section) the new config changes but that waits for the next restart.
        public var warnings: [ConfigProblem]
    }

    /// The keys that take effect only at the next restart, as the warnings name them (a
    /// section's keys by the section's name, once), in the table's order.
    public static var restartOnlyKeys: [String] {
        var names: [String] = []
        for row in ConfigKey.all where row.reload == .restart {
            let name = row.section ?? row.name
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// `new` as the running service applies it over `running`.
    public static func apply(_ new: Config, over running: Config) -> Outcome {
        var config = new
        var warned: [String] = []
        for row in ConfigKey.all where row.reload == .restart && row.differs(new, running) {
            let name = row.section ?? row.name
            if !warned.contains(name) { warned.append(name) }
        }
        for row in ConfigKey.all where row.reload == .restart { row.keep(&config, running) }
        let warnings = restartOnlyKeys.filter(warned.contains).map { ConfigProblem(line: nil, "'\($0)' takes effect at the next restart") }
        return Outcome(config: config, warnings: warnings)
    }
}
