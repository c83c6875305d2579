import Foundation
import LecternModel
import LecternProtocol

extension LecternConnection {
    /// Makes stored image uploads one deck in this order (images-deck, docs/protocol.md
    /// §30.9): `converting` as the server makes it; returns the new deck's upload-stored.
    public func imagesDeck(_ images: [ContentID], name: String, converting: ((ConversionProgress) -> Void)? = nil) throws -> UploadStored {
        let tag = send(.imagesDeck(ImagesDeck(images: images, name: name)))
        while true {
            if let m = inbox.next(tag: tag, command: nil, timeout: 0.05) {
                if case .conversionProgress(let p) = m {
                    converting?(p)
                    continue
                }
                if let e = m.error { throw ClientError.server(e) }
                guard case .uploadStored(let stored) = m else { throw ClientError.unexpected("\(m.command)") }
                return stored
            }
            if !channel.isActive { throw ClientError.closed }
        }
    }
}
