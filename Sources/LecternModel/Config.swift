/// Everything an admin sets in `/etc/lectern/lectern.toml` (docs/config.md), typed, with
/// its default. Each field is one row of the config's table (`ConfigTable.swift` in
/// LecternService: the key's name, range, reload policy and doc), which reads the file into
/// it; a key added later is one field here and one row there. Nothing here is a string
/// that stands for something else: "not set" is nil, a choice is an enum.
public struct Config: Equatable, Sendable {
    // top level
    public var room = "Lectern"
    public var port = 7420
    /// The presenter passcode: plain, or the salted hash `lectern hash-passcode` prints;
    /// nil: not set (the file's `""` too).
    public var passcode: String?
    public var moderatorPasscode: String?
    public var floor: FloorMode = .moderated
    /// Who may join as a viewer (§24): with the room passcode or `audiencePasscode`, anyone
    /// who reaches the room, or nobody.
    public var audience: AudienceMode = .passcode
    /// The audience passcode: plain, or a hash made with the presenter passcode's salt and
    /// rounds; nil: viewers use the room passcode.
    public var audiencePasscode: String?
    /// Minutes without any person (device or viewer; a wall view is none) after which the
    /// meeting ends and everything of it is cleared (docs/protocol.md §27).
    public var audienceIdleMinutes = 120
    /// What becomes of presenters' uploads when a meeting ends (§27): removed with it (the
    /// default) or kept until a meeting ends on a later day (UTC).
    public var uploadsKept: UploadsKept = .meeting
    /// New viewer identities one address gets at once (then one every 3 s): a room behind
    /// one NAT raises it (docs/protocol.md §24.1).
    public var audienceNewPerAddress = 40
    /// Whether every presenter may draw on the wall (else: the holder, the moderator and
    /// those they allow).
    public var inkEveryone = false
    /// Whether the room keeps the meeting record (§26): `record = "on"` (default) or "off".
    public var record = true
    /// Whether presenters (not only the moderator) may download the meeting record.
    public var recordPresenters = false
    public var dataDir = "/var/lib/lectern"
    /// Seconds a dropped floor holder's content stays on screen, waiting for them.
    public var gracePeriod = 60.0
    /// Seconds a presenter the moderator removed can't join again from the same address
    /// under the same name (0: no cool-down).
    public var removeCooldown = 60.0
    /// Plain passcodes shorter than this are refused (hashes can't be measured).
    public var passcodeMinLength = 6
    /// Largest upload, in MiB.
    public var maxUploadMB = 500
    /// Everything stored in the data directory together, in MiB.
    public var diskQuotaMB = 4096
    /// Minutes before the end of a talk the console's timer turns to its warning colour.
    public var timerWarningMinutes = 5
    /// Next on a deck's last page goes to its first, previous on its first to its last.
    public var wrapAround = false
    /// Devices connected at once (1–254; vPresent's ids).
    public var maxClients = 254
    /// Finished page frames kept for instant page turns, in MiB.
    public var pageCacheMB = 96
    /// Seconds a page may take to draw before it is given up (the previous frame stays).
    public var renderBudget = 4.0
    /// MiB of memory one page may use to draw, in its render worker (RLIMIT_AS beyond
    /// what the worker maps at start): a page that needs more is not shown. Two workers
    /// (the wall's, the background's) and the service fit the unit's MemoryMax (640M):
    /// ≈ 200 MB of service (96 of page cache) + 2 × (≈ 30 MB of worker + 192).
    public var renderMemoryMB = 192
    /// Live sharing's caps (`[share]`).
    public var share = ShareSettings()
    /// Seconds of silence after which a peer is considered gone.
    public var keepaliveTimeout = 6.0
    /// TCP port of the web remote (HTTP, and the wire protocol over its WebSocket at `/ws`).
    /// nil: no web remote (the file's `http_port = 0`); 0: any free port (tests).
    public var httpPort: Int? = 8080
    /// Connections open at once on both ports together (docs/protocol.md, "Limits").
    public var maxConnections = 1024
    /// Connections open at once from one address, both ports together.
    public var maxConnectionsPerAddress = 64
    /// Of `maxConnections`, the places only registered devices may take: 512 ≥ 254 floor
    /// devices (`max_clients`' largest) + 250 viewers (§24.8), so a full audience leaves every
    /// presenter's and the moderator's place free.
    public var connectionsReservedForDevices = 512
    /// Seconds a new web-remote connection has to send a complete request head.
    public var httpHeadTimeout = 5.0
    /// Seconds an idle keep-alive web-remote connection stays open between requests.
    public var httpIdleTimeout = 30.0
    /// Where clips' sound goes: the first HDMI sound card, nowhere, or an ALSA PCM.
    public var audioDevice: AudioDevice = .auto

    // [display]
    /// `output` (as `lecternd --display`).
    public var display: DisplayChoice = .auto
    /// "card0" or "/dev/dri/card0"; nil: the first card with a display connected.
    public var card: String?
    /// A name like "HDMI-A-1"; nil: the first connected connector.
    public var connector: String?
    /// The mode asked for; nil: the display's preferred mode.
    public var mode: RequestedMode?
    public var background: RGB = .black
    /// Branding on the idle screen: the accent colour (nil: the text colour), a PNG or SVG
    /// logo, and a PNG or SVG background image.
    public var accent: RGB?
    public var logo: String?
    public var backgroundImage: String?
    /// Percent of each side kept clear for projectors that crop the picture's edge.
    public var overscanPercent = 0.0
    /// `crossfade_ms`: the cross-fade between pages without a `/Trans` of their own, in ms;
    /// 0 (the default): a cut, as the deck has it. Presenters change it for the room (§21).
    public var crossfadeMs = 0
    /// Where Prometheus scrapes `/metrics` ("127.0.0.1:9420"); nil: no metrics endpoint.
    public var metricsAddress: ListenAddress?
    /// The presenter passcode is a 6-digit code on the wall (ScreenCode), not `passcode`.
    public var screenCode = false
    /// The code on the wall changes after this many minutes (and when a meeting ends).
    public var screenCodeMinutes = 60
    /// The room's Wi-Fi, shown on the idle screen with a Wi-Fi QR code; nil: not shown.
    public var wifiSSID: String?
    /// Its WPA passphrase; nil: an open network.
    public var wifiPassword: String?
    /// TLS on both ports (the protocol port and the web remote's): on by default. Without
    /// `tlsCertificate` the service makes a self-signed certificate on first start.
    public var tls = true
    /// The admin's certificate chain (PEM, leaf first) and its private key (PEM); both or
    /// neither. nil: the self-signed certificate kept in `dataDir/tls`.
    public var tlsCertificate: String?
    public var tlsKey: String?
    /// With TLS on: plain (unencrypted) connections are still accepted on both ports (the
    /// web remote still sends browsers' page loads to https://). Off by default.
    public var allowPlain = false

    /// `[convert]`: uploads converted to PDF (office documents, images; docs/config.md).
    public var convert = ConvertSettings()
    public init() {}

    public var maxUploadBytes: Int64 { Int64(maxUploadMB) << 20 }
    /// The upload limit as the admin wrote it (`max_upload_mb = 100`: "100 MB"), in messages.
    public var maxUploadText: String { "\(maxUploadMB) MB" }
    public var diskQuotaBytes: Int64 { Int64(diskQuotaMB) << 20 }
    public var pageCacheBytes: Int { pageCacheMB << 20 }

    /// `card` as the device path KMS opens ("card1" → "/dev/dri/card1"); nil for any card.
    public var cardPath: String? { card.map { $0.hasPrefix("/") ? $0 : "/dev/dri/" + $0 } }
}

/// One thing wrong with a config file, with the line it is on (when it is on one).
/// With config drop-ins (`lectern.d/*.toml`) it also names the file it is in.
public struct ConfigProblem: Equatable, Sendable, CustomStringConvertible {
    public var line: Int?
    public var message: String
    /// The file the problem is in, when the config is more than one file (nil: the main file alone).
    public var file: String?
    public init(line: Int?, _ message: String, file: String? = nil) { self.line = line; self.message = message; self.file = file }
    /// "line 3: …" for the main file alone; "/etc/lectern/lectern.d/20-room.toml:3: …" (as
    /// compilers write it) when the config is several files.
    public var description: String {
        switch (file, line) {
        case (let f?, let l?): return "\(f):\(l): \(message)"
        case (let f?, nil): return "\(f): \(message)"
        case (nil, let l?): return "line \(l): \(message)"
        case (nil, nil): return message
        }
    }
}
