/// How the floor is given, as the config file's `floor` key and the state snapshot say it
/// ("open", "moderated").
/// `open`: any presenter may take the floor, the newest request wins.
/// `moderated`: requests queue and the moderator grants.
public enum FloorMode: String, Sendable, Codable, CaseIterable {
    case open
    case moderated
}
