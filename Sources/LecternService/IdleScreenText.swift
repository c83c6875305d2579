import LecternRender

extension Service {
    /// What the idle screen says: the room's name, the addresses and the protocol's port,
    /// and the web remote's address a phone opens (as text and as a QR code) when it is on.
    func idleScreen(port: Int, room: String? = nil) -> IdleScreen {
        let addresses = NetworkAddresses.current()
        let url = httpPort.map { "http://\(addresses.first ?? "localhost"):\($0)/" }
        return IdleScreen(
            room: room ?? config.room, addresses: addresses, port: port, url: url,
            background: options.config.background)
    }
}
