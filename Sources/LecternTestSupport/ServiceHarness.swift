import Foundation
import LecternClient
import LecternModel
import LecternPipeline
import LecternProtocol
import LecternRender
import LecternService

/// A real service in this process for a test: the virtual display at 1920×1080, the
/// protocol on real TCP on 127.0.0.1 (any free port), the web remote on any free HTTP port
/// when asked for, a fresh data directory under `dir`. Stopped when the harness goes.
/// Test targets add what only they need as extensions (the web tests: browsers).
///
/// TLS as the service ships: on, with the certificate it makes itself, and every client
/// the harness makes (`connect`, `presenter`, `raw`, `url`) speaks TLS pinned to it (as the
/// CLI does after its first use). A test about plain turns it off in its `tweak`
/// (`tls = false`, or `allowPlain`), saying why; the clients then speak plain.
public final class ServiceHarness {
    public static let presenterPass = "presenter-pass-1"
    public static let moderatorPass = "moderator-pass-1"
    public private(set) var service: Service
    /// The test's folder: the service's data is in `dir + "/data"`, fixtures may go beside it.
    public let dir: String
    private var teardown: [() -> Void] = []
    private var attachments: [ObjectIdentifier: AnyObject] = [:]

    /// The self-signed key and certificate the first harness's service made, kept for the
    /// process: later harnesses put them in their data directory before the service starts,
    /// which reads them as at any later start of an appliance (making them is most of a
    /// start's cost in a debug build).
    private static let keptCertificate = Shared<(certificate: String, key: String)?>(nil)

    /// - Parameters:
    ///   - webRemote: the web remote on any free HTTP port (`url`); a `tweak` may change it.
    ///   - freshCertificate: the service makes its own self-signed certificate (the tests of
    ///     that), instead of finding the one kept from an earlier harness of this process.
    ///   - tweak: changes the room's config before the service starts.
    public init(
        floor: FloorMode = .moderated, room: String = "Test Room", webRemote: Bool = false, freshCertificate: Bool = false,
        tweak: (inout Config) -> Void = { _ in }
    ) throws {
        dir = Fixtures.tempDir(webRemote ? "web" : "svc")
        var c = Config.testRoom(
            dataDir: dir + "/data", room: room, floor: floor,
            passcode: Self.presenterPass, moderatorPasscode: Self.moderatorPass)
        if webRemote { c.httpPort = 0 }
        tweak(&c)
        let selfSigned = c.tls && c.tlsCertificate == nil && !freshCertificate
        let paths = TLSIdentity.selfSignedPaths(dataDir: c.dataDir)
        let fm = FileManager.default
        // A data directory that has its pair already (a test's second service on it) keeps it.
        if selfSigned, let kept = Self.keptCertificate.value, !fm.fileExists(atPath: paths.certificate), !fm.fileExists(atPath: paths.key) {
            try Self.copyPair(from: kept, to: paths)
        }
        var o = Service.Options(config: c)
        o.host = "127.0.0.1"
        service = try Service.start(options: o)
        if selfSigned, Self.keptCertificate.value == nil, fm.fileExists(atPath: paths.certificate) {
            let keep = Fixtures.tempDir("kept-tls")
            let kept = (certificate: keep + "/certificate.pem", key: keep + "/key.pem")
            try Self.copyPair(from: paths, to: kept)
            Self.keptCertificate.value = kept
        }
    }

    /// Copies a key and certificate, the key readable by its owner only (as the service keeps it).
    private static func copyPair(from: (certificate: String, key: String), to: (certificate: String, key: String)) throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: (to.key as NSString).deletingLastPathComponent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try fm.copyItem(atPath: from.certificate, toPath: to.certificate)
        try fm.copyItem(atPath: from.key, toPath: to.key)
        chmod(to.key, 0o600)
    }

    deinit {
        for body in teardown.reversed() { body() }
        service.stop()
    }

    /// Stops the service and starts it again on the same config and data directory, as a
    /// restart of the appliance would (its ports may change: reach it through a FlakyProxy
    /// and retarget that).
    /// `tweak` changes the config for the new start (a passcode an admin changed).
    public func restart(tweak: (inout Config) -> Void = { _ in }) throws {
        service.stop()
        var o = service.options
        tweak(&o.config)
        service = try Service.start(options: o)
    }

    /// Keeps `object` (a browser driver) for the harness's life; `teardown` runs before the
    /// service stops. `attachment(_:)` finds it again by type.
    public func attach<T: AnyObject>(_ object: T, teardown body: @escaping () -> Void = {}) {
        attachments[ObjectIdentifier(T.self)] = object
        teardown.append(body)
    }

    public func attachment<T: AnyObject>(_ type: T.Type) -> T? { attachments[ObjectIdentifier(type)] as? T }

    public var port: Int { service.port }

    /// The certificate the service presents on both ports (nil: a room with `tls = false`).
    public var fingerprint: CertificateFingerprint? { service.tlsIdentity?.fingerprint }

    /// How the harness's protocol clients speak: TLS pinned to the service's certificate, or
    /// plain in a room without TLS.
    public var clientTLS: ClientTLS? { fingerprint.map { .pinned($0) } }

    /// "https" when the service speaks TLS, else "http".
    public var scheme: String { fingerprint == nil ? "http" : "https" }

    /// The web remote's address ("https://127.0.0.1:PORT/", http:// in a room without TLS);
    /// PORT is -1 when it isn't listening.
    public var url: String { "\(scheme)://127.0.0.1:\(service.httpPort ?? -1)/" }

    /// The web remote over TLS ("https://127.0.0.1:PORT/").
    public var httpsURL: String { "https://127.0.0.1:\(service.httpPort ?? -1)/" }

    /// The web remote's address in plain ("http://127.0.0.1:PORT/"): what the wall shows
    /// and a browser types, which the service sends on to https://.
    public var plainURL: String { "http://127.0.0.1:\(service.httpPort ?? -1)/" }

    /// A protocol connection, not registered (over TLS pinned to the service's certificate,
    /// unless the room is plain).
    public func connect(timeout: Double = 10) throws -> LecternConnection {
        try LecternConnection(host: "127.0.0.1", port: port, timeout: timeout, tls: clientTLS)
    }

    /// A raw socket to the protocol port (or `port`: the web remote's), from `source` when
    /// given, speaking TLS as the service does (pinned), or plain in a room without TLS.
    public func raw(port: Int? = nil, from source: String? = nil) throws -> RawSocket {
        try RawSocket(port: port ?? self.port, from: source, tls: fingerprint)
    }

    /// `lectern`'s connection options for this room: the port, and over TLS the service's
    /// certificate (`--fingerprint`), as an admin reads it off the wall.
    public var cliConnection: [String] {
        ["--port", "\(port)"] + (fingerprint.map { ["--fingerprint", $0.hex] } ?? [])
    }

    public func presenter(_ name: String) throws -> LecternConnection {
        let c = try connect()
        try c.register(name: name, role: .presenter, passcode: Self.presenterPass)
        return c
    }

    public func moderator(_ name: String = "Mod") throws -> LecternConnection {
        let c = try connect()
        try c.register(name: name, role: .moderator, passcode: Self.moderatorPass)
        return c
    }

    /// The frame the pipeline renders for a page of a file, at the output's size or another
    /// (a preview's), to compare screenshots with.
    public func expectedFrame(pdf: String, page: Int, width: Int? = nil, height: Int? = nil) throws -> Frame {
        let s = service.stage.compositor.settings
        return try Compositor.renderPage(
            PDFDocument(path: pdf), page: page,
            settings: s.sized(width: width ?? s.width, height: height ?? s.height))
    }
}
