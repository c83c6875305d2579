/// Everything an admin sets in `/etc/lectern/lectern.toml` (docs/config.md), with its
/// default. The file is read by `ConfigFile` in LecternService; this is the model.
public struct Config: Equatable, Sendable {
    public enum FloorMode: String, Sendable, CaseIterable { case open, moderated }

    // top level
    public var room = "Lectern"
    public var port = 7420
    /// The presenter passcode: plain, or the salted hash `lectern hash-passcode` prints.
    public var passcode = ""
    public var moderatorPasscode = ""
    public var floor: FloorMode = .moderated
    public var dataDir = "/var/lib/lectern"
    /// Seconds a dropped floor holder's content stays on screen, waiting for them.
    public var gracePeriod = 60.0
    /// Plain passcodes shorter than this are refused.
    public var passcodeMinLength = 6
    /// Largest upload, in MiB.
    public var maxUploadMB = 500
    /// Everything stored in the data directory together, in MiB.
    public var diskQuotaMB = 4096
    /// Devices connected at once (1–254; vPresent's ids).
    public var maxClients = 254
    /// Finished page frames kept for instant page turns, in MiB.
    public var pageCacheMB = 96
    /// Seconds of silence after which a peer is considered gone.
    public var keepaliveTimeout = 6.0

    // [display]
    public var display = "auto"
    public var card = ""
    public var connector = ""
    /// "" for the display's preferred mode.
    public var mode = ""
    public var background: RGB = .black
    public var overscanPercent = 0.0

    public init() {}

    public var maxUploadBytes: Int64 { Int64(maxUploadMB) << 20 }
    public var diskQuotaBytes: Int64 { Int64(diskQuotaMB) << 20 }
}

/// One thing wrong with a config file, with the line it is on (when it is on one).
public struct ConfigProblem: Equatable, Sendable, CustomStringConvertible {
    public var line: Int?
    public var message: String
    public init(line: Int?, _ message: String) { self.line = line; self.message = message }
    public var description: String { line.map { "line \($0): \(message)" } ?? message }
}
