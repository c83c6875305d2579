/// The reload policy (SIGHUP): what a running lecternd takes from a new, valid config.
/// Passcodes (for new registrations), the room name, the limits and the TLS certificate
/// (`tls_certificate`, `tls_key`: read again, for new connections) apply at once; what
/// can't change while running keeps its running value, with a warning for the admin.
public enum ConfigReload {
    public struct Outcome: Equatable, Sendable {
        /// The config to apply: the new one, with the running value of every key that
        /// can't change while running.
        public var config: Config
        /// One per key the new config changes but that waits for the next restart.
        public var warnings: [ConfigProblem]
    }

    /// A key (as the file names it) that takes effect only at the next restart: whether
    /// it differs between two configs, and how to keep the running value.
    private struct Held {
        let key: String
        let differs: (Config, Config) -> Bool
        let keep: (inout Config, Config) -> Void

        init<T: Equatable>(_ key: String, _ field: WritableKeyPath<Config, T>) {
            self.key = key
            differs = { $0[keyPath: field] != $1[keyPath: field] }
            keep = { $0[keyPath: field] = $1[keyPath: field] }
        }
        /// Several fields under one name: the display is opened once, at start.
        init(_ key: String, _ fields: [Held]) {
            self.key = key
            differs = { a, b in fields.contains { $0.differs(a, b) } }
            keep = { new, old in fields.forEach { $0.keep(&new, old) } }
        }
    }

    private static let held: [Held] = [
        Held("port", \.port), Held("floor", \.floor), Held("data_dir", \.dataDir),
        Held("max_clients", \.maxClients), Held("grace_period", \.gracePeriod),
        Held("page_cache_mb", \.pageCacheMB), Held("render_budget", \.renderBudget), Held("render_memory_mb", \.renderMemoryMB),
        Held("http_port", \.httpPort),
        Held("max_connections", \.maxConnections), Held("max_connections_per_address", \.maxConnectionsPerAddress),
        Held("connections_reserved_for_devices", \.connectionsReservedForDevices),
        Held("http_head_timeout", \.httpHeadTimeout), Held("http_idle_timeout", \.httpIdleTimeout),
        Held("audio_device", \.audioDevice),
        Held("metrics_address", \.metricsAddress),
        Held("tls", \.tls), Held("allow_plain", \.allowPlain),
        Held("convert", \.convert),
        Held("share", \.share),
        Held(
            "display",
            [
                Held("output", \.display), Held("mode", \.mode), Held("card", \.card),
                Held("connector", \.connector), Held("background", \.background),
                Held("overscan", \.overscanPercent), Held("crossfade_ms", \.crossfadeMs),
            ]),
    ]

    /// The names of the keys that take effect only at the next restart, in warning order.
    public static var restartOnlyKeys: [String] { held.map(\.key) }

    /// `new` as the running service applies it over `running`.
    public static func apply(_ new: Config, over running: Config) -> Outcome {
        var config = new
        var warnings: [ConfigProblem] = []
        for h in held where h.differs(new, running) {
            warnings.append(ConfigProblem(line: nil, "'\(h.key)' takes effect at the next restart"))
        }
        for h in held { h.keep(&config, running) }
        return Outcome(config: config, warnings: warnings)
    }
}
