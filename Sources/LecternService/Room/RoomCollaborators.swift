/// What the room's shell is built with besides its loop, config, stage and store: made by
/// `Service.start` in order, before the room, and given to `Room.init` whole (nothing is
/// set on the room after it exists). All optional: a room without them (a test's) saves
/// nothing, makes no record, counts nothing and tells nobody of codes.
struct RoomCollaborators {
    /// Saves what is on screen and who holds the floor after every change; replies that
    /// acknowledge a change then wait for its write (Room+DurableReplies.swift).
    var stateWriter: StateWriter?
    /// Makes the meeting record's PDF (§26) in a worker process.
    var recordMaker: RecordMaker?
    /// Counts page turns, clip frames, uploads and errors for `/metrics` (ServiceMetrics.swift).
    var metrics: ServiceMetrics?
    /// Told of a new code on the wall once its keys are in force (on the room's loop).
    var onScreenCode: ((String) -> Void)?
    /// Told when the code in the wall's corner changes (on the room's loop).
    var onCornerCode: ((String?) -> Void)?
}
