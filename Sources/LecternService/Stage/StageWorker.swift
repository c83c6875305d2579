import Dispatch
import Foundation
import LecternModel
import LecternPipeline
import LecternProtocol
import LecternRender
import LecternRoom
import LecternSound
import LecternVideo
import Synchronization

/// The room's work with the output, off the event loop: showing scenes, opening and
/// playing clips, screenshots and page previews. Each finished job comes back to the room
/// as a `RoomEvent` through `report` (which hops onto the room's loop).
final class StageWorker: Sendable {
    let stage: Stage
    let store: ContentStore
    private let report: @Sendable (RoomEvent) -> Void
    private let work = DispatchQueue(label: "lectern.room.stage", qos: .userInitiated, attributes: .concurrent)
    /// An opened clip, and its source once it plays.
    private struct OpenClip {
        let decoder: ClipDecoder
        let control: PlaybackControl
        let path: String
        var source: ClipSource?
    }
    private struct Held {
        /// Opened clips by play serial, until they end or are discarded.
        var clips: [Int: OpenClip] = [:]
        /// The clip the room gave the sound to (§23.1), and the one whose track plays now.
        /// Moving the sound, and starting clips, run one at a time on `soundQueue`: the
        /// device is let go by one clip before the next opens it.
        var soundHolder: Int?
        var soundTrack: (serial: Int, track: SoundTrack)?
    }
    private let held = Mutex(Held())
    /// Clips' sound (nil: silent, as in tests that don't ask for it).
    let sound: ClipSoundSource?
    private let soundQueue = DispatchQueue(label: "lectern.room.sound", qos: .userInitiated)
    /// Page previews: a fixed pool, not a thread each (§13); the room's `PictureBudget`
    /// bounds what waits for it.
    let previews = PicturePool(name: "lectern.preview", width: 2)
    /// Opens clips, one at a time, on a thread that yields to the display first: FFmpeg's
    /// decoding threads, started when a clip opens, inherit its nice (`ClipSource.producerNice`;
    /// a dispatch worker's would put them above the display loop).
    private let clipOpener = PicturePool(name: "lectern.clip.op", width: 1)   // 15 bytes: a thread name's most

    init(stage: Stage, store: ContentStore, sound: ClipSoundSource? = nil, report: @escaping @Sendable (RoomEvent) -> Void) {
        self.stage = stage
        self.store = store
        self.sound = sound
        self.report = report
    }

    /// Hands `plan` to the display loop, in the order the room asked (a newer plan overtakes
    /// one still drawing its pages: that one is reported superseded, never presented). The
    /// room hears of it once, when it is on the output: `shown` with every pane's page box.
    func showWall(op: Int, _ plan: WallPlan) {
        let report = self.report, m = stage
        stage.submit(plan) { result in
            switch result {
            case .success(let boxes):
                let mode = m.outputStatus
                let share = boxes.map { Stage.share($0, DisplayMode(width: Int(mode.width), height: Int(mode.height))) }
                report(.shown(op: op, error: nil, boxes: share))
            case .failure(let error): report(.shown(op: op, error: LecternError(mapping: error)))
            }
        }
    }

    // MARK: clips

    func openClip(serial: Int, content: String) {
        let path = store.path(of: content)
        clipOpener.submit { [self] in
            ClipSource.yieldToTheDisplay()
            let decoder: ClipDecoder
            do { decoder = try ClipDecoder(path: path) } catch {
                return report(.clipOpened(serial: serial, .failure(LecternError(mapping: error))))
            }
            let control = PlaybackControl { [report] status in report(.clipProgressed(serial: serial, Self.progress(status))) }
            held.withLock { $0.clips[serial] = OpenClip(decoder: decoder, control: control, path: path) }
            let i = decoder.info
            let facts = ClipFacts(
                duration: i.duration,
                description: "\(i.codec) \(i.width)x\(i.height), \(String(format: "%.1f", i.duration)) s")
            report(.clipOpened(serial: serial, .success(facts)))
        }
    }

    /// Plays the clip as the moving source of pane `pane` of `layout` (the display loop takes
    /// its frames; it never presents), with the sound if the room gave it the sound; when it
    /// ends, is stopped or fails, the loop lets go of it (its pane keeps the last frame until
    /// the room's next plan).
    func playClip(serial: Int, loop: Bool, layout: WallLayout, pane: Int) {
        guard let clip = held.withLock({ $0.clips[serial] }) else { return }
        soundQueue.async { [self] in
            let size = stage.sourceSize(layout: layout, pane: pane)
            let stage = self.stage, report = self.report
            let source = ClipSource(
                decoder: clip.decoder, loop: loop, control: clip.control, sound: nil, background: stage.compositor.settings.background,
                width: size.width, height: size.height, threads: .inPane(of: layout.paneCount)
            ) { [weak self] result in
                stage.detach(serial: serial)
                self?.held.withLock { $0.clips[serial] = nil }
                let how: ClipEnding.How
                switch result.end {
                case .failed(let why): how = .failed(why)
                case .ended: how = .ended
                default: how = .stopped
                }
                report(.clipEnded(serial: serial, ClipEnding(how: how, progress: Self.progress(result.status))))
                if let worker = self { worker.soundQueue.async { worker.settleSound() } }
            }
            guard
                held.withLock({ s -> Bool in
                    guard s.clips[serial] != nil else { return false }
                    s.clips[serial]?.source = source
                    return true
                })
            else { return }   // discarded meanwhile
            stage.attach(serial: serial, source)
            settleSound()   // before the start: the first frame starts its sound
            source.start()
        }
    }

    /// The room gave the sound to the clip of `serial` (nil: to none, §23.1).
    func clipSound(serial: Int?) {
        held.withLock { $0.soundHolder = serial }
        soundQueue.async { [self] in settleSound() }
    }

    /// On `soundQueue`: the track playing goes to the clip the room gave the sound to — the
    /// one playing is let go and stopped first (the device is free), then the holder's is
    /// opened and handed to its source. A clip not yet playing gets it when it starts.
    private func settleSound() {
        let (want, current, target) = held.withLock { s -> (Int?, (serial: Int, track: SoundTrack)?, OpenClip?) in
            (s.soundHolder, s.soundTrack, s.soundHolder.flatMap { s.clips[$0] })
        }
        if let cur = current, cur.serial != want || held.withLock({ $0.clips[cur.serial] == nil }) {
            held.withLock { $0.clips[cur.serial]?.source }?.replaceSound(nil)
            cur.track.stop()
            held.withLock { $0.soundTrack = nil }
        }
        guard let want, held.withLock({ $0.soundTrack == nil }), let source = target?.source, let path = target?.path,
            let track = sound?.open(clip: path)
        else { return }
        if source.replaceSound(track) {
            held.withLock { $0.soundTrack = (want, track) }
        } else {
            track.stop()   // it ended meanwhile
        }
    }

    func discardClip(serial: Int) {
        guard let c = held.withLock({ $0.clips.removeValue(forKey: serial) }) else { return }
        if c.source == nil { c.decoder.close() }
    }

    func steerClip(serial: Int, _ command: ClipCommand) {
        guard let control = held.withLock({ $0.clips[serial]?.control }) else { return }
        switch command {
        case .pause: control.pause()
        case .resume: control.resume()
        case .stop: control.stop()
        case .seek(let s): control.seek(to: s)
        case .loop(let on): control.setLoop(on)
        }
    }

    static func progress(_ s: PlaybackStatus) -> ClipProgress {
        ClipProgress(
            state: s.state == .paused ? .paused : s.state == .stopped ? .stopped : .playing,
            position: s.position, presented: s.presented, dropped: s.dropped)
    }

    // MARK: pictures

    /// The output's frame, exactly, or scaled down like a page preview (the web remote's
    /// live picture on a phone needs a tenth of the pixels).
    /// `jpeg`: the smaller of the PNG and a JPEG (a photo is a fraction as JPEG; text and
    /// flat colour are smaller, and sharper, as PNG).
    func screenshot(_ id: ConnectionID, tag: UInt16, maxWidth: Int, maxHeight: Int, jpeg: Bool = false) {
        work.async { [self] in
            let full = stage.screenshot()
            let size = Fit.previewSize(width: full.width, height: full.height, maxWidth: maxWidth, maxHeight: maxHeight)
            let frame = full.scaled(width: size.width, height: size.height)
            report(.screenshotTaken(id, tag: tag, jpeg ? Self.smallerPieces(frame) : Self.pieces(frame)))
        }
    }

    private static func smallerPieces(_ frame: Frame) -> [ScreenshotChunk] {
        let png = [UInt8](PNG.encode(frame))
        let bytes = JPEG.encode(frame).flatMap { $0.count < png.count ? $0 : nil } ?? png
        return ScreenshotChunk.split(png: bytes, width: UInt32(frame.width), height: UInt32(frame.height))
    }

    /// In the preview pool (two threads at most), not on one of dispatch's few threads: the
    /// preview waits for the background render worker (up to the render budget, behind a
    /// prerender). The room admits a preview only within its `PictureBudget`.
    func renderPreview(_ id: ConnectionID, tag: UInt16, content: String, page: Int, maxWidth: Int, maxHeight: Int, part: PagePart = .whole) {
        previews.submit { [self] in
            let compositor = stage.compositor
            let size = Fit.previewSize(
                width: compositor.settings.width, height: compositor.settings.height,
                maxWidth: maxWidth, maxHeight: maxHeight)
            do {
                let frame = try compositor.preview(content: content, page: page, width: size.width, height: size.height, part: part)
                report(.previewRendered(id, tag: tag, .success(Self.pieces(frame))))
            } catch {
                report(.previewRendered(id, tag: tag, .failure(LecternError(mapping: error))))
            }
        }
    }

    private static func pieces(_ frame: Frame) -> [ScreenshotChunk] {
        ScreenshotChunk.split(png: [UInt8](PNG.encode(frame)), width: UInt32(frame.width), height: UInt32(frame.height))
    }
}
