/// Who is in the middle of joining: connections that got hello and have not registered
/// (they are closed after `registerTimeoutSeconds`). The wall shows the code small in a
/// corner while there are any (`screen_code = true`, JoiningCorner).
extension RoomCore {
    var joiningCount: Int { peers.values.filter { !$0.isRegistered && !$0.closing }.count }
}

/// What the wall's corner shows: the code while someone is joining and something other
/// than the idle screen (which shows the code large) is on the wall. Pure.
public enum JoiningCorner {
    public static func code(screenCode: String?, joining: Int) -> String? {
        joining > 0 ? screenCode : nil
    }
}
