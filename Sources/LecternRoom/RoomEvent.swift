import LecternModel
import LecternProtocol

/// What happens to the room: everything `RoomCore` is told. The shell (`Room`) turns
/// transport callbacks and finished slow work into these, in the order they happen, and
/// passes the time with each (`RoomCore.handle(_:now:)`).
public enum RoomEvent: Sendable {
    // MARK: connections
    /// A peer connected (TCP or WebSocket); `challenge` is the fresh one its hello carries.
    case opened(ConnectionID, address: String, challenge: [UInt8])
    /// The peer's connection is gone (closed by either side).
    case closed(ConnectionID)
    /// One complete protocol frame from the peer.
    case frame(ConnectionID, WireFrame)
    /// The peer's bytes are not protocol frames (the decoder failed); `tag` is the tag of
    /// the frame it choked on when its header could be read.
    case malformed(ConnectionID, tag: UInt16, LecternError)
    /// The peer's outbound queue went over (false) or back under (true) its high-water mark.
    case writable(ConnectionID, Bool)
    /// The keep-alive clock: the shell sends one every half second.
    case tick
    /// A deadline the core asked for (`RoomEffect.wake`) has passed.
    case wake
    /// The service is stopping (SIGTERM): every connection gets error `shuttingDown` and is
    /// closed; the floor and the screen are kept for the restart.
    case shuttingDown

    // MARK: the screen
    /// The stage finished showing screen change `op` (error nil) or could not (error): one
    /// event, with every pane's page box as shares of the output (nil: no page in that pane;
    /// empty: not known) — devices map their touches with it (§22.6 `ink.box`).
    case shown(op: Int, error: LecternError?, boxes: [InkSnapshot.Box?] = [])
    /// Where each pane's page on the output sits now, after the wall was drawn again on its
    /// own (a display plugged, another mode) or restored: as shares of the output, in pane
    /// order (nil: no page in that pane).
    case pageBoxes([InkSnapshot.Box?])
    /// The clip of play `serial` was opened (its length), or could not be.
    case clipOpened(serial: Int, Result<ClipFacts, LecternError>)
    /// The clip of play `serial` changed (state, position, frame counts).
    case clipProgressed(serial: Int, ClipProgress)
    /// The clip of play `serial` ended, was stopped or failed.
    case clipEnded(serial: Int, ClipEnding)

    // MARK: live sharing (§29)
    /// Share `serial`'s stream failed (damaged, too large, a stalled decoder): it ends.
    case shareFailed(serial: Int, LecternError)

    // MARK: uploads
    /// The part file of upload writer `writer` was opened (nil) or could not be (why).
    case partOpened(ContentID, writer: Int, failure: String?)
    /// A chunk queued on `writer` is in the file (or its write failed: `failure`).
    case chunkWritten(ContentID, writer: Int, bytes: Int, failure: String?)
    /// `writer` let go of its part file, which now holds `size` bytes.
    case partClosed(ContentID, writer: Int, size: UInt64)
    /// The possession proof of `begin` against the stored file was checked.
    case proofChecked(ConnectionID, tag: UInt16, UploadBegin, matches: Bool)
    /// An upload-finish was carried out: the file verified and stored, or refused.
    case uploadFinished(ConnectionID, tag: UInt16, writer: Int, UploadToStore, Result<ContentEntry, UploadRefusal>)

    // MARK: converted files (§30)
    /// The converter of `content` has done `done` of `total` pages (total 0: not known yet).
    case conversionProgressed(ContentID, done: Int, total: Int)
    /// The first page of `content` is ready, checked, shown as the deck's page 1 while the
    /// rest converts (§30.8): `entry` is the deck of that one page (its notes the
    /// document's); `pagesInAll` the pages the whole will have (0: not known yet).
    case conversionFirstPage(ContentID, ContentEntry, pagesInAll: Int)
    /// The conversion of `content` ended: the deck, stored with its PDF; or why not (for a
    /// conversion the room stopped, its own reason is told instead).
    case conversionEnded(ContentID, Result<ContentEntry, LecternError>)
    /// The file of an image set is stored as an original to convert, or couldn't be.
    case imageSetStored(ConnectionID, tag: UInt16, ImageSetToStore, Result<ContentEntry, LecternError>)

    // MARK: pictures
    /// A screenshot asked for by `.screenshot`, as PNG pieces.
    case screenshotTaken(ConnectionID, tag: UInt16, [ScreenshotChunk])
    /// A page preview asked for by `.renderPreview`, as PNG pieces, or why it failed.
    case previewRendered(ConnectionID, tag: UInt16, Result<[ScreenshotChunk], LecternError>)
    /// The meeting record being made for a connection: pages drawn so far, then the PDF.
    case recordProgressed(ConnectionID, tag: UInt16, RecordProgress)
    case recordMade(ConnectionID, tag: UInt16, Result<RecordPDF, LecternError>)
    /// The record's PDF asked for by `.sendRecord` is all written to the connection, or the
    /// connection went first: the room may make another.
    case recordSent(ConnectionID, tag: UInt16)

    // MARK: the output
    /// The output's display was lost, came back or changed mode (and at start: what it is).
    case outputChanged(OutputSnapshot)

    // MARK: keys
    /// Keys derived off the loop for a reload or a new code on the wall (the shell's
    /// `KeyDeriver`), numbered by `serial`.
    case keysDerived(RoomCore.Keys)
}

/// What the shell learns when a clip opens.
public struct ClipFacts: Equatable, Sendable {
    public var duration: Double
    /// For the log: codec, size, length.
    public var description: String
    public init(duration: Double, description: String) {
        self.duration = duration
        self.description = description
    }
}

/// A clip's playback as the core keeps it (the player reports it as it goes).
public struct ClipProgress: Equatable, Sendable {
    public enum State: Equatable, Sendable { case playing, paused, stopped }
    public var state: State
    /// Clip time of the frame on screen, seconds.
    public var position: Double
    public var presented: Int
    public var dropped: Int
    public init(state: State = .playing, position: Double = 0, presented: Int = 0, dropped: Int = 0) {
        self.state = state
        self.position = position
        self.presented = presented
        self.dropped = dropped
    }
}

/// How a clip's play ended.
public struct ClipEnding: Equatable, Sendable {
    public enum How: Equatable, Sendable { case ended, stopped, failed(String) }
    public var how: How
    public var progress: ClipProgress
    public init(how: How, progress: ClipProgress) {
        self.how = how
        self.progress = progress
    }
}

/// Why a finished upload was not stored. `discarded`: the part file is gone (its bytes
/// leave the quota); otherwise it stays as it is.
public struct UploadRefusal: Error, Equatable, Sendable {
    public var error: LecternError
    public var discarded: Bool
    /// For the log only (paths, system errors): never sent to the room.
    public var detail: String?
    public init(_ error: LecternError, discarded: Bool, detail: String? = nil) {
        self.error = error
        self.discarded = discarded
        self.detail = detail
    }
}
