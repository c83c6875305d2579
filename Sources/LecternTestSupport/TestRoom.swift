import LecternModel

extension Config {
    /// A room for tests and benchmarks that run the service in their own process: the
    /// virtual display at 1920×1080, any free port, no web remote (set `httpPort` to 0 for
    /// one on any free port), uploads and state under `dataDir`; TLS on with the certificate
    /// the service makes itself, as it ships (a test about plain turns it off and says why).
    public static func testRoom(
        dataDir: String, room: String = "Test Room", floor: FloorMode,
        passcode: String?, moderatorPasscode: String?
    ) -> Config {
        var c = Config()
        c.room = room
        c.port = 0
        c.httpPort = nil
        c.passcode = passcode
        c.moderatorPasscode = moderatorPasscode
        c.floor = floor
        c.dataDir = dataDir
        c.display = .virtual
        c.mode = RequestedMode(width: 1920, height: 1080, refresh: 60)
        return c
    }
}
