import Foundation
import LecternClient
import LecternCore
import LecternService

/// The room the in-process benches measure: an open room on loopback with the bench's
/// passcodes, many connections allowed from this one machine, and its presenter joined
/// with the floor. `tweak` changes the config before the service starts.
struct BenchRoom {
    static let presenterPass = "bench-presenter"
    static let moderatorPass = "bench-moderator"
    let service: Service
    let presenter: LecternConnection

    init(dir: String, presenterName: String, tweak: (inout Config) -> Void = { _ in }) throws {
        var config = Config.testRoom(
            dataDir: dir + "/data", room: "Bench", floor: .open,
            passcode: Self.presenterPass, moderatorPasscode: Self.moderatorPass)
        config.maxConnectionsPerAddress = 1024   // hundreds of devices from this one machine
        tweak(&config)
        var options = Service.Options(config: config)
        options.host = "127.0.0.1"
        service = Service(options: options)
        try service.start()
        do {
            presenter = try LecternConnection(host: "127.0.0.1", port: service.port)
            try presenter.register(name: presenterName, role: .presenter, passcode: Self.presenterPass)
            _ = try presenter.requestFloor()
        } catch {
            service.stop()
            throw error
        }
    }
}
