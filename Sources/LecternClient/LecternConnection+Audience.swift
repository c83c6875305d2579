import Foundation
import LecternProtocol

extension LecternConnection {
    /// The next viewer-pointer the service sent this viewer (§24.2), within `timeout` seconds.
    func nextViewerPointer(timeout: Double = 10) -> ViewerPointer? {
        guard case .viewerPointer(let p)? = inbox.next(tag: 0, command: Command.viewerPointer.rawValue, timeout: timeout) else { return nil }
        return p
    }
}

extension LecternConnection {
    /// A page of the questions or of a poll's open-text answers (audience-fetch, §24.6).
    public func audienceFetch(_ f: AudienceFetch) throws -> AudiencePage {
        guard case .audiencePage(let p) = try request(.audienceFetch(f)) else { throw ClientError.unexpected("audience-page") }
        return p
    }

    /// The state pushes received and not yet taken, oldest first (taken now): what a test
    /// counts to see how often the service pushes.
    public func takeStatePushes() -> [Snapshot] {
        var out: [Snapshot] = []
        while case .state(let s)? = inbox.next(tag: 0, command: Command.state.rawValue, timeout: 0) { out.append(s) }
        return out
    }
}

extension LecternConnection {
    /// The PNG answering a page-preview or screenshot request sent earlier with `tag`
    /// (several requests may be in flight: a phone asking ahead, or a test's flood).
    public func image(replyingTo tag: UInt16) throws -> Data {
        var png = Data()
        while true {
            guard case .screenshotData(let piece) = try reply(tag: tag, what: "picture") else { throw ClientError.unexpected("picture") }
            guard Int(piece.offset) == png.count else { throw ClientError.unexpected("picture piece out of order") }
            png.append(contentsOf: piece.data)
            if png.count >= Int(piece.totalSize) { return png }
        }
    }
}
