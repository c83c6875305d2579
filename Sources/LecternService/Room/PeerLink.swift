import NIOCore

/// What the room needs of a peer's connection (a `PeerHandler`, over TCP or WebSocket).
protocol PeerLink: AnyObject {
    var remoteAddress: String { get }
    func write(_ bytes: [UInt8])
    /// One large frame, after what was written; succeeds once the connection took it.
    func write(frame: ByteBuffer) -> EventLoopFuture<Void>
    func setReading(_ on: Bool)
    /// It registered as a device.
    func registered()
    func close()
}

extension PeerHandler: PeerLink {}
