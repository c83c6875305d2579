#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The sd_notify protocol without libsystemd: one datagram per message, sent to the
/// AF_UNIX socket systemd names in `NOTIFY_SOCKET` (a path, or an abstract name written
/// with a leading `@`). Every call is a no-op when the service was not started by systemd
/// with `Type=notify` (no `NOTIFY_SOCKET`), so `lecternd` calls it unconditionally.
///
/// systemd/lectern.service: `Type=notify`, `NotifyAccess=main`, `WatchdogSec=10`. The
/// service sends `ready()` once the first frame is on the output, `watchdog()` from the
/// present loop at least every `watchdogInterval` seconds, and `reloading()` … `ready()`
/// around a SIGHUP reload.
public struct SystemdNotify: Sendable {
    /// `NOTIFY_SOCKET` as given: "/run/systemd/notify" or "@name"; nil when unset or unusable.
    public let notifySocket: String?
    /// How often to send `watchdog()`: half of `WATCHDOG_USEC`, in seconds; nil when
    /// systemd doesn't watch this process (no `WATCHDOG_USEC`, or `WATCHDOG_PID` names
    /// another process).
    public let watchdogInterval: Double?

    /// From the process environment.
    public init() {
        self.init(environment: Self.processEnvironment())
    }

    /// From an explicit environment (tests); `pid` is this process's id, for `WATCHDOG_PID`.
    public init(environment: [String: String], pid: Int32 = getpid()) {
        if let s = environment["NOTIFY_SOCKET"], s.count > 1, s.hasPrefix("/") || s.hasPrefix("@"),
            s.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path)
        {
            notifySocket = s
        } else {
            notifySocket = nil
        }
        var interval: Double? = nil
        if let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0 {
            let pidMatches = environment["WATCHDOG_PID"].map { Int32($0) == pid } ?? true
            if pidMatches { interval = Double(usec) / 2_000_000 }
        }
        watchdogInterval = interval
    }

    /// True when there is a socket to talk to.
    public var isEnabled: Bool { notifySocket != nil }

    /// READY=1: start-up is finished (the first frame is on the output). Also ends a reload.
    public func ready(status text: String? = nil) {
        send("READY=1" + (text.map { "\nSTATUS=\(Self.oneLine($0))" } ?? ""))
    }

    /// WATCHDOG=1: the keep-alive ping; send it at least every `watchdogInterval` seconds.
    public func watchdog() { send("WATCHDOG=1") }

    /// STATUS=…: one line shown by `systemctl status lectern`.
    public func status(_ text: String) { send("STATUS=\(Self.oneLine(text))") }

    /// RELOADING=1: a reload (SIGHUP) has started; send `ready()` when it is done.
    public func reloading() {
        send("RELOADING=1\nMONOTONIC_USEC=\(Self.monotonicMicroseconds())")
    }

    /// STOPPING=1: shutting down.
    public func stopping() { send("STOPPING=1") }

    /// Sends one datagram of `KEY=value` lines. Returns false when it could not be sent
    /// (or there is no socket); callers can ignore that, as with sd_notify.
    @discardableResult
    public func send(_ message: String) -> Bool {
        guard let notifySocket else { return false }
        #if canImport(Glibc)
            let type = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
            let flags = Int32(MSG_NOSIGNAL)
        #elseif canImport(Musl)
            let type = Int32(SOCK_DGRAM) | Int32(SOCK_CLOEXEC)
            let flags = Int32(MSG_NOSIGNAL)
        #else
            let type = SOCK_DGRAM
            let flags: Int32 = 0
        #endif
        let fd = socket(AF_UNIX, type, 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }

        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        var name = Array(notifySocket.utf8)
        let abstract = name.first == UInt8(ascii: "@")
        if abstract { name[0] = 0 }   // Linux abstract namespace: a leading NUL, no terminator
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard name.count < capacity else { return false }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            raw.copyBytes(from: name)
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2
        // A path counts its terminating NUL (sockaddr_un was zeroed); an abstract name doesn't.
        let length = socklen_t(pathOffset + name.count + (abstract ? 0 : 1))

        let bytes = Array(message.utf8)
        let sent = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                bytes.withUnsafeBytes { b in
                    sendto(fd, b.baseAddress, b.count, flags, sa, length)
                }
            }
        }
        return sent == bytes.count
    }

    static func oneLine(_ s: String) -> String {
        String(s.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }

    static func monotonicMicroseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1_000
    }

    static func processEnvironment() -> [String: String] {
        var env: [String: String] = [:]
        for key in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] {
            if let v = getenv(key) { env[key] = String(cString: v) }
        }
        return env
    }
}
