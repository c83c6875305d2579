import Foundation
import LecternModel
import LecternRender
import NIOCore

extension Service {
    /// What the idle screen says: the room's name, the addresses and the protocol's port,
    /// and the web remote's address a phone opens (as text and as a QR code) when it is on.
    func idleScreen(port: Int, room: String? = nil) -> IdleScreen {
        var c = config
        c.background = options.config.background
        if let room { c.room = room }
        return Self.idleScreen(config: c, tls: tls, port: port, httpPort: httpPort, code: currentScreenCode)
    }

    /// The idle screen of `config` (its room's name, background, Wi-Fi and branding).
    static func idleScreen(config: Config, tls: TLSServing?, port: Int, httpPort: Int?, code: String?) -> IdleScreen {
        let addresses = NetworkAddresses.current()
        // The code rides in the URL's fragment: the browser never sends it to a server (no
        // log has it); the web remote fills the passcode from it, so scanning is joining.
        // With the appliance's own certificate the address is plain http://: it opens the
        // landing page (§28), which says what the browser's warning means and goes on to
        // https://. With the admin's certificate (or no TLS) it is the page itself.
        let scheme = tls.map { $0.current.warns ? "http" : "https" } ?? "http"
        let url = httpPort.map { "\(scheme)://\(addresses.first ?? "localhost"):\($0)/" + (code.map { "#code=\($0)" } ?? "") }
        var idle = IdleScreen(
            room: config.room, addresses: addresses, port: port, url: url,
            background: config.background)
        idle.code = code
        if let ssid = config.wifiSSID { idle.wifi = WiFiJoin(ssid: ssid, password: config.wifiPassword ?? "") }
        idle.timeOfDay = Self.timeOfDay(Date())
        idle.accent = config.accent
        idle.logoPath = config.logo
        idle.backgroundImagePath = config.backgroundImage
        idle.fingerprint = tls?.current.identity.fingerprint.short
        return idle
    }

    /// "14:05" in the appliance's local time zone (the idle screen's clock).
    static func timeOfDay(_ date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970)
        var parts = tm()
        localtime_r(&t, &parts)
        return String(format: "%02d:%02d", parts.tm_hour, parts.tm_min)
    }

    /// Redraws the idle screen each minute, on the minute, for its clock (only the idle
    /// picture changes: a page on the output stays as it is).
    func startIdleClock(loop: EventLoop) {
        let now = Date().timeIntervalSince1970
        let toNextMinute = 60 - now.truncatingRemainder(dividingBy: 60) + 0.05
        loop.scheduleTask(in: .milliseconds(Int64(toNextMinute * 1000))) { [weak self] in
            guard let self, !self.isStopped else { return }
            self.updateIdleScreen()
            self.startIdleClock(loop: loop)
        }
    }

    /// Redraws the idle screen from the room's loop without waiting for the stage, which a
    /// playing clip holds until it ends (a looping one until it is stopped through this
    /// loop): composed here, shown in order on a queue of its own.
    func updateIdleScreen() {
        let idle = idleScreen(port: port)
        idleUpdates.async { [stage] in try? stage.setIdle(idle) }
    }

    /// The code on the wall now (`screen_code = true`); nil when the room has a fixed
    /// presenter passcode. Tests read it here: the state clients see never carries it.
    public var currentScreenCode: String? {
        let room = self.room
        if room.loop.inEventLoop { return room.wallCode }
        return try? room.loop.submit { room.wallCode }.wait()
    }
}
