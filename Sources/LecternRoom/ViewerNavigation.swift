/// What viewers may do with the deck on the wall: locked (the default) they follow the
/// live page; unlocked they may browse the deck at their own pace (the web page keeps its
/// own page and a "back to live" button); locking again brings everyone back. And whether
/// they may download the deck. Changed by the floor's driver or the moderator. Pure.
public struct ViewerNavigation: Codable, Equatable, Sendable {
    public var locked = true
    public var download = false
    /// The download address's secret while downloads are allowed (§24.5); a new one each time.
    public var downloadToken: String?
    public init() {}
}
