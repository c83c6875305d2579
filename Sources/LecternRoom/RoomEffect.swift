import LecternModel
import LecternProtocol
import Logging

/// What `RoomCore` asks the shell to do, in order. The shell carries each out as it is
/// (no decisions of its own) and reports what finished later as a `RoomEvent`.
public enum RoomEffect: Equatable, Sendable {
    // MARK: connections
    /// Write these bytes (whole frames) to the peer.
    case send(ConnectionID, [UInt8])
    /// Close the peer's connection (after what was written).
    case close(ConnectionID)
    /// The peer registered as a device (its connection may use the places kept for devices).
    case registered(ConnectionID)
    /// Stop (false) or start (true) reading from the peer.
    case setReading(ConnectionID, Bool)
    /// Send `.wake` at this time (monotonic seconds); nil: no wake-up needed.
    case wake(at: Double?)

    // MARK: the screen
    /// Show the whole wall's plan, pane by pane (one pane or several, §9.7); report
    /// `.shown(op:)`.
    case showWall(op: Int, WallPlan)
    /// Open the clip (content id, hex) for play `serial`; report `.clipOpened`.
    case openClip(serial: Int, content: String)
    /// Play the opened clip of `serial`, its frames made for pane `pane` of `layout` (the
    /// plan shows it there: `PaneContent.clip`); report progress and the end.
    case playClip(serial: Int, loop: Bool, layout: WallLayout, pane: Int)
    /// The clip of `serial` has the sound output (nil: none); every other clip plays
    /// muted (§23.1).
    case clipSound(serial: Int?)
    /// Let go of the opened clip of `serial` without playing it (superseded).
    case discardClip(serial: Int)
    /// Steer the playing clip of `serial`.
    case steerClip(serial: Int, ClipCommand)

    // MARK: live sharing (§29)
    /// Start share `serial`'s decoder and the display loop's source for it (the plan puts
    /// it in a pane); decoding starts at the first key frame routed to it.
    case shareStart(serial: Int, ShareConfig)
    /// Media frames (share-frame) of `connection` go to share `serial`'s decoder from now on,
    /// never through the room, and its acks, key-frame requests and advice go back to it,
    /// device byte `device`. Nil: from nobody (the sharer's connection is gone; the last
    /// picture stays). A new route starts decoding again at the next key frame.
    case shareRoute(serial: Int, connection: ConnectionID?, device: DeviceID)
    /// End share `serial`: its decoder stops, the display loop lets go of its source.
    case shareStop(serial: Int)
    /// The newest picture of share `serial` at most `maxWidth`×`maxHeight`, as JPEG pieces;
    /// report `.previewRendered`.
    case sharePicture(ConnectionID, tag: UInt16, serial: Int, maxWidth: Int, maxHeight: Int)
    /// Keep share `serial`'s newest picture (a JPEG at most 960×540) at `path` for the
    /// meeting record, `after` seconds from now (its start) or now (its end, before its
    /// `.shareStop`). A share with no picture by then keeps none.
    case shareRecordFrame(serial: Int, path: String, after: Double)
    /// The meeting ended: the record's share pictures in `directory` go.
    case clearRecordFrames(directory: String)

    // MARK: uploads
    /// Open (create) the part file of `content` at `offset`, truncating after it, for
    /// writer `writer`; hash what is written when `hashing`. Report `.partOpened`.
    case openPart(ContentID, writer: Int, offset: UInt64, hashing: Bool)
    /// Append a chunk on `writer`; report `.chunkWritten` once it is in the file.
    case writeChunk(ContentID, writer: Int, [UInt8])
    /// Let go of the part file once `writer`'s queued chunks are written; report `.partClosed`.
    case closePart(ContentID, writer: Int)
    /// Delete the part file of `content` (nothing writes it; given up or empty).
    case removePart(ContentID)
    /// Check `begin.proof` against the stored file with `challenge`; report `.proofChecked`.
    case checkProof(ConnectionID, tag: UInt16, UploadBegin, challenge: [UInt8])
    /// Finish `writer`'s upload: verify, store, report `.uploadFinished`.
    case finishUpload(ConnectionID, tag: UInt16, writer: Int, UploadToStore)

    // MARK: converted files (§30)
    /// Convert the stored original of `entry` (format `format`) to its PDF; report
    /// `.conversionProgressed` as it goes and `.conversionEnded` once.
    case startConversion(ContentEntry, format: String)
    /// Stop the conversion of this upload (kill its converter); `.conversionEnded` still comes.
    case stopConversion(ContentID)
    /// An upload named `fileName` began: a converter that would take such a file may get
    /// ready while its bytes arrive (a hint: what the file is, its content decides).
    case prepareConverter(fileName: String)
    /// Remove the stored original of a conversion that made no deck (its part of the quota
    /// is given back by the room).
    case discardUpload(ContentID)
    /// Store the image set's file (docs/protocol.md §30.9) as an original to convert;
    /// report `.imageSetStored`.
    case storeImageSet(ConnectionID, tag: UInt16, ImageSetToStore)
    /// The deck `content`, shown by its first page while it converted, is whole now
    /// (§30.8): draw ahead the neighbours of `page` (the page shown) as after a page turn.
    case prerender(content: String, page: Int, part: PagePart)

    // MARK: pictures
    /// Take the output's frame, scaled to fit (0 = no limit); report `.screenshotTaken`.
    /// `jpeg`: a JPEG may answer where it is smaller than the PNG.
    case screenshot(ConnectionID, tag: UInt16, maxWidth: Int, maxHeight: Int, jpeg: Bool = false)
    /// Render a page as the output would show it, small; report `.previewRendered`.
    case renderPreview(ConnectionID, tag: UInt16, content: String, page: Int, maxWidth: Int, maxHeight: Int, part: PagePart)

    // MARK: the presenter console
    /// Keep these notes with the upload `content` (replacing what was kept).
    case saveNotes(ContentID, DeckNotes)

    // MARK: the meeting (§27)
    /// Remove this upload from the store (its file, description and notes): the meeting ended.
    case removeUpload(ContentID)

    // MARK: transitions
    /// The cross-fade for pages without `/Trans` (nil: none).
    case setFallbackTransition(PageTransition?)
    // MARK: pointer and ink
    /// What the wall draws over `page` when it is on screen (replaces what it drew before).
    case inkPage(InkPageRef, InkLayer)
    /// Device `device` points at `point` of `page` (`lifted`: the dot fades). The wall keeps
    /// only the newest position of each pointer and draws it at the next refresh.
    case pointer(DeviceID, page: InkPageRef, InkPoint, lifted: Bool)

    // MARK: the rest
    /// Save what must survive a restart.
    case persist(SavedState)
    /// The room's volume (0–100) and mute changed: the clip playing, and the next ones, follow.
    case setSound(level: Int, muted: Bool)
    case log(Logger.Level, String)
    /// Draw the meeting record into one PDF (the record worker), reporting
    /// `.recordProgressed` and then `.recordMade` for the connection that asked.
    case makeRecord(ConnectionID, tag: UInt16, RecordJob)
    /// Send the made PDF to the connection as record-data frames (this tag and device byte,
    /// `pages` in each), read from its file a piece at a time, each once the connection has
    /// taken the one before; then report `.recordSent`.
    case sendRecord(ConnectionID, tag: UInt16, device: UInt8, pages: Int, RecordPDF)

    // MARK: what the shell serves (RoomCore+Served.swift), each told when it changes
    /// The deck the web server may hand out at `/download/<token>` now (nil: none, §24.5).
    case offerDownload(DownloadOffer?)
    /// Who may fetch which page image over HTTP now (§24.2).
    case pageImageAccess(PageImageAccess)
    /// Connections that got hello and have not registered (the wall's corner shows the
    /// code while there are any, `JoiningCorner`).
    case joining(count: Int)

    // MARK: keys
    /// A new code for the wall (`screen_code = true`): derive the room's keys with it off
    /// the loop (reporting `.keysDerived`); the wall shows it once they are in force.
    case newScreenCode(String)
    /// The keys numbered `serial` (or newer) are in force: registrations prove them from now
    /// on (the shell shows a new code on the wall once its keys are in).
    case keysInForce(serial: UInt64)
}

/// Commands for a playing clip.
public enum ClipCommand: Equatable, Sendable {
    case pause, resume, stop
    case seek(Double)
    /// Loop from now on, or end at the end.
    case loop(Bool)
}

/// What an upload-finish hands to the storing worker.
public struct UploadToStore: Equatable, Sendable {
    public var content: ContentID
    public var name: String
    /// The kind announced in upload-begin, if any: a file of the other kind is refused.
    public var announcedKind: ContentKind?
    /// Who uploaded it: its id, and its name (kept with the file).
    public var device: DeviceID
    public var uploader: String
    /// The size announced in upload-begin.
    public var size: UInt64
    public init(content: ContentID, name: String, announcedKind: ContentKind?, device: DeviceID, uploader: String, size: UInt64) {
        self.content = content
        self.name = name
        self.announcedKind = announcedKind
        self.device = device
        self.uploader = uploader
        self.size = size
    }
}
