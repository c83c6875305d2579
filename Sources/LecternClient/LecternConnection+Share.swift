import Foundation
import LecternModel
import LecternProtocol

extension LecternConnection {
    /// share-begin (§29): the share is live, or waits for the moderator.
    public func beginShare(_ c: ShareConfig) throws -> ShareReady {
        guard case .share(.ready(let r)) = try request(.share(.begin(c))) else { throw ClientError.unexpected("share-ready") }
        return r
    }

    /// Sends one media frame, unless the connection has been over its output budget for
    /// `wait` seconds (the network is behind): then the frame is not sent (false) — a live
    /// picture late is worth less than the next one.
    public func sendShareFrame(_ f: ShareFrame, wait: Double) -> Bool {
        guard inbox.waitUntilWritable(timeout: wait) else { return false }
        send(.share(.frame(f)))
        return true
    }

    /// share-picture: the newest picture of `device`'s share at most `maxWidth`×`maxHeight`
    /// (0: no limit on that side), a JPEG (§29.2; a viewer: the share in the main pane, §29.8).
    public func sharePicture(of device: DeviceID, maxWidth: UInt16, maxHeight: UInt16 = 0) throws -> Data {
        try image(tag: send(.share(.picture(device: device, maxWidth: maxWidth, maxHeight: maxHeight))), what: "share picture")
    }

    /// The share messages the service sent since the last call (acks, key-frame requests,
    /// advice, share-ready after an approval, share-ended), oldest first; taken.
    public func shareEvents() -> [ShareMessage] {
        var out: [ShareMessage] = []
        for c in [Command.shareAck, .shareKeyRequest, .shareAdvice, .shareReady, .shareEnded] {
            while case .share(let m)? = inbox.next(tag: 0, command: c.rawValue, timeout: 0) { out.append(m) }
        }
        return out
    }
}
