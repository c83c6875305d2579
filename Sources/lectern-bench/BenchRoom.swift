import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternService

/// The room the in-process benches measure: an open room on loopback with the bench's
/// passcodes, many connections allowed from this one machine, and its presenter joined
/// with the floor. TLS on, as the service ships: the benches' clients pin its certificate
/// (`fingerprint`); only TLSBench compares plain against TLS, with rooms of its own.
/// `tweak` changes the config before the service starts.
struct BenchRoom {
    static let presenterPass = "bench-presenter"
    static let moderatorPass = "bench-moderator"
    let service: Service
    let presenter: LecternConnection

    /// The certificate the service presents (nil if a tweak turned TLS off).
    var fingerprint: CertificateFingerprint? { service.tlsIdentity?.fingerprint }
    /// The protocol over TLS pinned to the service's certificate (plain if TLS is off).
    var clientTLS: ClientTLS? { fingerprint.map { .pinned($0) } }

    init(dir: String, presenterName: String, tweak: (inout Config) -> Void = { _ in }) throws {
        var config = Config.testRoom(
            dataDir: dir + "/data", room: "Bench", floor: .open,
            passcode: Self.presenterPass, moderatorPasscode: Self.moderatorPass)
        config.maxConnectionsPerAddress = 1024   // hundreds of devices from this one machine
        tweak(&config)
        var options = Service.Options(config: config)
        options.host = "127.0.0.1"
        service = try Service.start(options: options)
        do {
            presenter = try LecternConnection(host: "127.0.0.1", port: service.port, tls: service.tlsIdentity.map { .pinned($0.fingerprint) })
            try presenter.register(name: presenterName, role: .presenter, passcode: Self.presenterPass)
            _ = try presenter.requestFloor()
        } catch {
            service.stop()
            throw error
        }
    }
}
