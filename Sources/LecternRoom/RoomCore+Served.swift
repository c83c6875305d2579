import LecternProtocol

/// The deck viewers may download now (§24.5): its token, content id (hex) and file name.
public struct DownloadOffer: Equatable, Sendable {
    public var token: String
    public var content: String
    public var name: String
    public init(token: String, content: String, name: String) {
        self.token = token
        self.content = content
        self.name = name
    }
}

/// What the shell serves outside the wire protocol from the room's decisions: the deck
/// download and the page images the web server hands out, and how many are joining (the
/// wall's corner shows the code then). The core tells the shell when one changes
/// (`RoomEffect.offerDownload`, `.pageImageAccess`, `.joining`); the shell never reads it.
struct ServedFacts: Equatable {
    var downloadOffer: DownloadOffer?
    /// What the shell starts with: nothing shown, no viewer.
    var pageImageAccess = PageImageAccess()
    var joining = 0
}

extension RoomCore {
    /// After each event: an effect for each served fact that changed since it was last told,
    /// ahead of the event's other effects (a revoked download or page is refused before
    /// the replies and pushes that tell of it go out).
    mutating func announceServed() {
        let now = ServedFacts(downloadOffer: downloadOffer, pageImageAccess: pageImageAccess, joining: joiningCount)
        guard now != served else { return }
        var told: [RoomEffect] = []
        if now.downloadOffer != served.downloadOffer { told.append(.offerDownload(now.downloadOffer)) }
        if now.pageImageAccess != served.pageImageAccess { told.append(.pageImageAccess(now.pageImageAccess)) }
        if now.joining != served.joining { told.append(.joining(count: now.joining)) }
        served = now
        out.insert(contentsOf: told, at: 0)
    }
}
