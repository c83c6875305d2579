import LecternProtocol

extension LecternConnection {
    /// The next viewer-pointer the service sent this viewer (§24.2), within `timeout` seconds.
    public func nextViewerPointer(timeout: Double = 10) -> ViewerPointer? {
        guard case .viewerPointer(let p)? = inbox.next(tag: 0, command: Command.viewerPointer.rawValue, timeout: timeout) else { return nil }
        return p
    }
}
