import LecternModel
import LecternService
import XCTest

/// The reload policy, in memory: what a SIGHUP applies and what waits for a restart.
final class ConfigReloadTests: XCTestCase {
    func testWhatChangesWhileRunningApplies() {
        let running = Config()
        var new = running
        new.room = "Room 4.12"
        new.passcode = "new-presenter-passcode"
        new.moderatorPasscode = "new-moderator-passcode"
        new.passcodeMinLength = 8
        new.maxUploadMB = 100
        new.diskQuotaMB = 2048
        new.keepaliveTimeout = 10
        let outcome = ConfigReload.apply(new, over: running)
        XCTAssertEqual(outcome.config, new)
        XCTAssertEqual(outcome.warnings, [])
    }

    func testWhatCantChangeKeepsItsRunningValueWithAWarning() {
        var running = Config()
        running.room = "Old"
        var new = running
        new.room = "New"
        new.port = 9000
        new.floor = .open
        new.dataDir = "/srv/lectern"
        new.maxClients = 10
        new.gracePeriod = 5
        new.pageCacheMB = 1
        new.httpPort = nil
        new.mode = RequestedMode(width: 1280, height: 720)
        new.background = .white
        let outcome = ConfigReload.apply(new, over: running)
        var expected = running
        expected.room = "New"
        XCTAssertEqual(outcome.config, expected)
        XCTAssertEqual(
            outcome.warnings.map(\.description),
            [
                "'port' takes effect at the next restart", "'http_port' takes effect at the next restart",
                "'floor' takes effect at the next restart", "'grace_period' takes effect at the next restart",
                "'max_clients' takes effect at the next restart", "'data_dir' takes effect at the next restart",
                "'page_cache_mb' takes effect at the next restart", "'display' takes effect at the next restart",
            ])
    }

    func testEveryDisplayKeyIsOneWarning() {
        let running = Config()
        for change in [
            { (c: inout Config) in c.display = .virtual }, { $0.card = "card1" }, { $0.connector = "HDMI-A-2" },
            { $0.mode = RequestedMode(width: 1920, height: 1080, refresh: 50) }, { $0.background = .white }, { $0.overscanPercent = 3 },
            { $0.crossfadeMs = 300 },
        ] {
            var new = running
            change(&new)
            let outcome = ConfigReload.apply(new, over: running)
            XCTAssertEqual(outcome.config, running)
            XCTAssertEqual(outcome.warnings, [ConfigProblem(line: nil, "'display' takes effect at the next restart")])
        }
        var all = running
        all.display = .kms; all.card = "card0"; all.connector = "HDMI-A-1"
        XCTAssertEqual(ConfigReload.apply(all, over: running).warnings.count, 1)
    }

    /// The certificate's files are read again at a reload (a renewed certificate reaches new
    /// connections without a restart: docs/config.md, "TLS").
    func testTheCertificateAppliesAtAReload() {
        let running = Config()
        var new = running
        new.tlsCertificate = "/etc/lectern/tls/fullchain.pem"
        new.tlsKey = "/etc/lectern/tls/privkey.pem"
        let outcome = ConfigReload.apply(new, over: running)
        XCTAssertEqual(outcome.config, new)
        XCTAssertEqual(outcome.warnings, [])
    }

    func testRestartOnlyKeys() {
        XCTAssertEqual(
            ConfigReload.restartOnlyKeys,
            [
                "port", "http_port", "floor", "grace_period", "max_clients", "max_connections", "max_connections_per_address",
                "connections_reserved_for_devices", "http_head_timeout", "http_idle_timeout", "audio_device", "data_dir",
                // The code on the wall is set up at start: a reload turning it on would leave the room keyed to no code.
                "screen_code", "screen_code_minutes",
                "tls", "allow_plain", "metrics_address", "page_cache_mb", "render_budget", "render_memory_mb", "display",
                "convert", "share",
            ])
    }
}
