import ArgumentParser
import Foundation
import LecternClient
import LecternModel
import LecternProtocol

/// The options every command that talks to the appliance shares (contract.md).
struct ConnectionOptions: ParsableArguments {
    @Option(help: "The appliance's address.") var host = "127.0.0.1"
    @Option(help: "The appliance's port.") var port = 7420
    @Option(help: "The name others see for this device.") var name: String?
    @Option(help: "A file holding the presenter passcode (else $LECTERN_PASSCODE).") var passcodeFile: String?
    @Flag(help: "Register as moderator ($LECTERN_MODERATOR_PASSCODE or --moderator-passcode-file).") var moderator = false
    @Option(help: "A file holding the moderator passcode.") var moderatorPasscodeFile: String?
    @Flag(help: "Join as a viewer in the audience ($LECTERN_AUDIENCE_PASSCODE, else $LECTERN_PASSCODE).") var viewer = false
    @Option(
        help: ArgumentHelp(
            "The appliance's TLS certificate fingerprint (SHA-256, at least the 16 hex digits at the bottom of the idle screen); remembered for next time.",
            valueName: "HEX"))
    var fingerprint: String?

    var role: Role { viewer ? .viewer : moderator ? .moderator : .presenter }

    var deviceName: String {
        if let name { return name }
        if viewer { return "" }   // "Guest N"
        let user = ProcessInfo.processInfo.environment["USER"] ?? "lectern"
        return String("\(user)@\(ProcessInfo.processInfo.hostName)".prefix(64))
    }

    func passcode() throws -> String {
        let env = ProcessInfo.processInfo.environment
        if viewer {
            // An open audience takes any proof: no passcode is needed then.
            if let p = env["LECTERN_AUDIENCE_PASSCODE"], !p.isEmpty { return p }
            if let file = passcodeFile { return try Self.read(passcodeFile: file) }
            return env["LECTERN_PASSCODE"] ?? ""
        }
        let (file, name) = moderator ? (moderatorPasscodeFile, "LECTERN_MODERATOR_PASSCODE") : (passcodeFile, "LECTERN_PASSCODE")
        if let file { return try Self.read(passcodeFile: file) }
        if let p = env[name], !p.isEmpty { return p }
        throw CLIError(code: "passcode", message: "No passcode: set \(name) or use --\(moderator ? "moderator-" : "")passcode-file.", exitCode: 1)
    }

    /// A passcode file given and not readable is an error, for every role (a viewer's too).
    private static func read(passcodeFile file: String) throws -> String {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw CLIError(code: "passcode", message: "Can't read the passcode file \(file).", exitCode: 1)
        }
        return text.trimmingCharacters(in: .newlines)
    }

    /// Where this device's resume token is kept between invocations, so that a command run
    /// after `floor request` is the same device, holding the floor.
    var sessionFile: String {
        if let f = ProcessInfo.processInfo.environment["LECTERN_SESSION_FILE"] { return f }
        let base = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] ?? NSTemporaryDirectory()
        let safe = "\(host)-\(port)-\(role)-\(deviceName)".map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" }
        return base + "/lectern-session-" + String(safe)
    }

    /// Connects and registers, resuming the previous session of this device if it is still known.
    func connect() throws -> LecternConnection {
        let c = try open()
        let pass = try passcode()
        let saved = (try? Data(contentsOf: URL(fileURLWithPath: sessionFile))).flatMap { ResumeToken(bytes: [UInt8]($0)) }
        do {
            let ok = try c.register(name: deviceName, role: role, passcode: pass, resumeToken: saved)
            try? Data(ok.resumeToken.bytes).write(to: URL(fileURLWithPath: sessionFile), options: .atomic)
            chmod(sessionFile, 0o600)
        } catch let e as LecternConnection.ClientError {
            throw CLIError(e)
        }
        return c
    }
}

extension ConnectionOptions {
    /// Connects over TLS, checking the certificate: the fingerprint given with
    /// `--fingerprint`, else the one this user's known-rooms file has for HOST:PORT, else
    /// (the first use) whatever the appliance presents, remembered from then on. A room
    /// that doesn't speak TLS (`tls = false`) is reached in plain, unless it spoke TLS
    /// before (a pin) or a fingerprint was given: then it is refused.
    func open() throws -> LecternConnection {
        var known = KnownRooms(path: KnownRooms.defaultPath())
        let room = KnownRooms.key(host: host, port: port)
        let pinned = known.fingerprint(for: room)
        var given: CertificateFingerprint.Given?
        if let fingerprint {
            guard let g = CertificateFingerprint.Given(fingerprint) else {
                throw CLIError(
                    code: "argument",
                    message:
                        "--fingerprint takes the certificate's SHA-256 in hex: at least the 16 digits at the bottom of the idle screen (spaces and colons allowed), not '\(fingerprint)'.",
                    exitCode: 1)
            }
            given = g
        }
        let tls = ClientTLS { [given, pinned] f in
            if let given { return given.matches(f) }
            if let pinned { return f == pinned }
            return true
        }
        do {
            let c = try LecternConnection(host: host, port: port, tls: tls)
            if let f = c.certificate, f != pinned {
                try? known.remember(f, for: room)
                if given == nil {
                    FileHandle.standardError.write(
                        Data(
                            "lectern: first connection to \(room): its certificate is \(f) (compare with the bottom of the idle screen); remembered in \(known.path)\n"
                                .utf8))
                }
            }
            return c
        } catch LecternConnection.ClientError.certificateRefused(let f) {
            if let given, let fingerprint {
                throw CLIError(
                    code: "certificate",
                    message:
                        "The appliance at \(room) presents the certificate \(f), not the one given with --fingerprint (\(fingerprint)): refused. Compare with the fingerprint at the bottom of its idle screen; if they differ, something between you and the appliance is pretending to be it. (\(given.digits.count) digits given; full: \(f.hex))",
                    exitCode: 1)
            }
            throw CLIError(
                code: "certificate",
                message:
                    "The appliance at \(room) presents a different TLS certificate than before: now \(f), before \(pinned.map { "\($0)" } ?? "?") (remembered in \(known.path)). Refused. If its admin replaced the certificate, check the fingerprint at the bottom of the idle screen and run again with --fingerprint \(f.short.replacingOccurrences(of: " ", with: "")) (that remembers the new one). If the wall still shows the old one, something between you and the appliance is pretending to be it: don't connect.",
                exitCode: 1)
        } catch LecternConnection.ClientError.notTLS(let why) {
            if pinned != nil || given != nil {
                throw CLIError(
                    code: "certificate",
                    message:
                        "The appliance at \(room) answers without TLS\(pinned != nil ? ", but it used TLS before (remembered in \(known.path))" : ", but a fingerprint was given"): refused. If its admin turned TLS off (tls = false), delete the line for \(room) from \(known.path). (\(why))",
                    exitCode: 1)
            }
            // A room without TLS (tls = false): plain, as it asks.
            do { return try LecternConnection(host: host, port: port) } catch let e as LecternConnection.ClientError {
                throw CLIError(code: "connect", message: e.description, exitCode: 1)
            }
        } catch let e as LecternConnection.ClientError {
            throw CLIError(code: "connect", message: e.description, exitCode: 1)
        }
    }
}

extension CLIError {
    init(_ e: LecternConnection.ClientError) {
        if let l = e.lecternError {
            self.init(code: "\(l.code) \(l.code.name)", message: l.message, exitCode: Int32(10 + Int(l.code.rawValue >> 8)))
        } else {
            self.init(code: "client", message: e.description, exitCode: 1)
        }
    }
}

/// Runs `body` with a registered connection, turning protocol errors into CLI errors.
func withConnection<T>(_ options: ConnectionOptions, _ body: (LecternConnection) throws -> T) throws -> T {
    let c = try options.connect()
    defer { c.close() }
    do { return try body(c) } catch let e as LecternConnection.ClientError { throw CLIError(e) }
}

/// Before putting something new on the screen (`present`, `play`): in an open room, where
/// anyone may take the floor, a presenter that neither holds nor borrows it takes it first,
/// as `floor request` would (a newer request wins there). In a moderated room nothing is
/// asked: the server's `noFloor` stands. Moderators drive without the floor. Returns true
/// when it took the floor.
@discardableResult
func takeFloorIfOpen(_ c: LecternConnection, role: Role) throws -> Bool {
    guard role == .presenter else { return false }
    let s = try c.state()
    let me = c.deviceID
    guard s.floorMode == .open, s.floor.holder != me, s.floor.delegate != me else { return false }
    _ = try c.requestFloor()
    return true
}

/// A content id, or a file to upload first (deduplicated: a file the appliance has is not sent again).
/// `firstPage`: a document converted on the appliance is ready once its first page is
/// (docs/protocol.md §30.8), not its whole deck.
func resolveContent(_ arg: String, _ c: LecternConnection, quiet: Bool = true, firstPage: Bool = false) throws -> ContentID {
    if FileManager.default.fileExists(atPath: arg) {
        return try UploadCommand.upload(arg, c, showProgress: !quiet, firstPage: firstPage).content
    }
    if let id = ContentID(hex: arg) { return id }
    throw CLIError(code: "argument", message: "\(arg) is neither a file nor a content id.", exitCode: 1)
}
