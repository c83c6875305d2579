import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
import LecternTestSupport
import XCTest

/// The appliance image (board/image) booted on the virtual board: QEMU under TCG with the
/// image's own kernel, initramfs and root disk, systemd as PID 1, driven from the host with
/// the `lectern` CLI over forwarded ports, the scanout read with screendump, and commands run
/// as root in the guest through the test agent (board/image/vm run). Fails loudly when a tool
/// or the image is missing: never skips.
final class Appliance {
    let image: String
    let dir: String
    let port: Int
    let httpPort: Int
    /// Milliseconds (host's /proc/uptime) when QEMU was started for the last boot.
    private(set) var bootStartMs: Int = 0
    /// The certificate the appliance made on its first boot (TLS is on as it ships), as the
    /// first TLS connection saw it: the idle screen shows it, the CLI pins it.
    private(set) var fingerprint: CertificateFingerprint?
    private let seen = Seen()
    var vm: String { Repository.path("board/image/vm") }

    /// The image the tests boot, built (or found in the cache) once per test run.
    static func buildImage() throws -> String {
        let log = Fixtures.tempDir("image-build") + "/build.log"
        let r = try Fixtures.run("bash", ["-c", "exec \"$0\" 2>\"\(log)\"", Repository.path("board/image/test-image")])
        let out = String(decoding: r.out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard r.status == 0, !out.isEmpty else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw Fixtures.ToolError(description: "board/image/test-image failed (status \(r.status)): \(text.suffix(4000))")
        }
        return out
    }

    init(image: String) throws {
        self.image = image
        dir = Fixtures.tempDir("image-box")
        port = try Fixtures.freePort()
        httpPort = try Fixtures.freePort()
        try boot(fresh: true)
    }

    deinit { _ = try? Fixtures.run(vm, ["powercut", "--run-dir", dir]) }

    /// Boots the image (fresh: a new overlay, a first boot; else the disk as the last boot
    /// left it) and waits for the agent.
    func boot(fresh: Bool) throws {
        let log = dir + "/boot.out"
        var args = [vm, "boot", "--run-dir", dir, "--image", image, "--timeout", "400", "--forward", "\(port):7420", "--forward", "\(httpPort):8080"]
        if fresh {
            args.append("--fresh")
            // A first boot makes a new certificate: forget the old one and the CLI's pin of it.
            fingerprint = nil
            try? FileManager.default.removeItem(atPath: dir + "/known-rooms")
        }
        let r = try Fixtures.run("bash", ["-c", "exec \"$0\" \"$@\" >\"\(log)\" 2>&1 </dev/null"] + args)
        guard r.status == 0 else {
            throw Fixtures.ToolError(description: "the image did not boot (QEMU must start: this test never skips): \(contents(log)) serial: \(serial.suffix(3000))")
        }
        bootStartMs = Int(contents(dir + "/boot.ms").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    func powerCut() throws {
        let r = try Fixtures.run(vm, ["powercut", "--run-dir", dir])
        guard r.status == 0 else { throw Fixtures.ToolError(description: "powercut failed: \(r.err)") }
    }

    var serial: String { contents(dir + "/serial.log") }

    private func contents(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    /// Runs a shell command as root in the guest; its output and status.
    @discardableResult
    func guest(_ command: String, timeout: Int = 120) throws -> (out: String, status: Int32) {
        let r = try Fixtures.run(vm, ["run", "--run-dir", dir, "--timeout", "\(timeout)", "--", command])
        if r.status == 124 || r.err.contains("agent.py:") {
            throw Fixtures.ToolError(description: "the guest's agent did not answer '\(command)': \(r.err)")
        }
        return (String(decoding: r.out, as: UTF8.self), r.status)
    }

    /// Like `guest`, and the command must succeed.
    @discardableResult
    func must(_ command: String, timeout: Int = 120) throws -> String {
        let r = try guest(command, timeout: timeout)
        guard r.status == 0 else { throw Fixtures.ToolError(description: "in the guest, '\(command)' failed (\(r.status)): \(r.out)") }
        return r.out
    }

    /// The service's journal since this boot (messages only).
    func journal(_ unit: String = "lectern.service") throws -> String {
        try must("journalctl -b -u \(unit) -o cat --no-pager")
    }

    /// systemd's main PID of the service (0: not running).
    func mainPID() throws -> Int {
        Int(try must("systemctl show -P MainPID lectern.service").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    func property(_ name: String) throws -> String {
        try must("systemctl show -P \(name) lectern.service").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The passcodes the first boot made up (lectern-firstboot), read as root in the guest.
    func passcodes() throws -> (presenter: String, moderator: String) {
        if let known = knownPasscodes { return known }
        let text = try must("cat /etc/lectern/lectern.d/passcodes.toml")
        func value(_ key: String) -> String? {
            for line in text.split(separator: "\n") where line.hasPrefix(key + " = \"") {
                return String(line.dropFirst(key.count + 4).dropLast())
            }
            return nil
        }
        guard let p = value("passcode"), let m = value("moderator_passcode") else {
            throw Fixtures.ToolError(description: "no passcodes in the guest's passcodes.toml: \(text)")
        }
        knownPasscodes = (p, m)
        return (p, m)
    }
    private var knownPasscodes: (presenter: String, moderator: String)?

    func screendump() throws -> Frame {
        let out = dir + "/shot-\(UUID().uuidString.prefix(6)).ppm"
        defer { unlink(out) }
        let r = try Fixtures.run(vm, ["screendump", "--run-dir", dir, out])
        guard r.status == 0 else { throw Fixtures.ToolError(description: "screendump failed: \(r.err)") }
        return try PPM.decode(Data(contentsOf: URL(fileURLWithPath: out)))
    }

    /// Polls the scanout until `check` holds.
    @discardableResult
    func waitForScreen(timeout: Double = 120, _ what: String, _ check: (Frame) -> Bool) throws -> Frame {
        try ScanoutPoll.wait(for: what, timeout: timeout, interval: 0.5, failedPNG: dir + "/failed.png", screendump: screendump, check)
    }

    /// Runs the `lectern` CLI against the appliance as the same device every time.
    @discardableResult
    func lectern(_ args: [String]) throws -> String {
        let bin = try Fixtures.binary("lectern")
        let codes = try passcodes()
        let r = try Fixtures.run(
            "env",
            ["LECTERN_PASSCODE=\(codes.presenter)", "LECTERN_SESSION_FILE=\(dir)/session", "LECTERN_KNOWN_ROOMS=\(dir)/known-rooms", bin] + args
                + ["--host", "127.0.0.1", "--port", "\(port)", "--name", "image-test"])
        guard r.status == 0 else { throw Fixtures.ToolError(description: "lectern \(args.joined(separator: " ")) failed: \(r.err)") }
        return String(decoding: r.out, as: UTF8.self)
    }

    /// Waits until the service answers on the forwarded protocol port.
    func waitUntilServing(timeout: Double = 240) throws {
        try eventually("lecternd in the guest to answer on the forwarded port; serial: \(serial.suffix(2000))", timeout: timeout, interval: 0.5) {
            if let c = try? connect(timeout: 2) { c.close(); return true }
            return false
        }
    }

    /// A protocol connection over TLS that takes the appliance's certificate and remembers
    /// it (the tests learn the fingerprint the way a person reads it off the wall: once).
    func connect(timeout: Double = 60) throws -> LecternConnection {
        let seen = self.seen
        let c = try LecternConnection(
            host: "127.0.0.1", port: port, timeout: timeout,
            tls: ClientTLS {
                seen.set($0); return true
            })
        fingerprint = seen.value
        return c
    }

    /// Whether `f` is the idle screen the service draws for this room now (its certificate's
    /// fingerprint at the bottom, learned from a first connection).
    func isIdle(_ f: Frame) -> Bool {
        if fingerprint == nil, let c = try? connect(timeout: 2) { c.close() }
        guard let fingerprint else { return false }
        return Self.clocks().contains { PixelCompare.differingPixels(f, Self.idleScreen(timeOfDay: $0, fingerprint: fingerprint.short)) == 0 }
    }

    /// The fingerprint the last handshake showed (set from the TLS handler's thread).
    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var f: CertificateFingerprint?
        func set(_ v: CertificateFingerprint) { lock.lock(); f = v; lock.unlock() }
        var value: CertificateFingerprint? { lock.lock(); defer { lock.unlock() }; return f }
    }

    /// Waits until systemd says the service is active (READY=1 arrived) with a main PID other than `not`.
    @discardableResult
    func waitUntilActive(otherThan not: Int = 0, timeout: Double = 240) throws -> Int {
        var pid = 0
        var state = ""
        try eventually("lectern.service to be active again (last: \(state), pid \(pid))", timeout: timeout, interval: 0.5) {
            state = (try? must("systemctl is-active lectern.service || true"))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            pid = (try? mainPID()) ?? 0
            return state == "active" && pid != 0 && pid != not
        }
        return pid
    }

    /// The idle screen as the service draws it for this room at `timeOfDay` (the guest's
    /// address on QEMU's user network, its ports).
    static func idleScreen(timeOfDay: String, fingerprint: String, width: Int = 1920, height: Int = 1080) -> Frame {
        var idle = IdleScreen(room: "Lectern", addresses: ["10.0.2.15"], port: 7420, url: "http://10.0.2.15:8080/")   // its own certificate: the landing page (§28)
        idle.timeOfDay = timeOfDay
        idle.fingerprint = fingerprint
        let f = Frame(width: width, height: height)
        idle.draw(into: f)
        return f
    }

    /// The clock's possible readings now (the guest's zone is UTC; the host's may not be).
    static func clocks() -> Set<String> {
        var t = time_t(Date().timeIntervalSince1970)
        var local = tm(), utc = tm()
        localtime_r(&t, &local)
        gmtime_r(&t, &utc)
        return Set([local, utc].map { String(format: "%02d:%02d", $0.tm_hour, $0.tm_min) })
    }
}
