import Foundation
import LecternModel
import LecternSystem

/// The thread side of a `ClipSource`: decodes ahead, scales each frame to the pane into a
/// buffer of its own, queues it, obeys the control, drives the sound, and reports. The
/// decisions of when a frame is shown are `ClipPacing`'s, taken under the hand-over lock
/// by the display loop; this only carries them out. Only the producer's thread uses it.
final class ClipProducer {
    let decoder: ClipDecoder
    let loop: Bool
    let control: PlaybackControl
    /// The clip's sound while it has the sound output (`ClipSource.replaceSound` moves it).
    var sound: ClipSound?
    let background: RGB
    /// The pane's share of the cores (`ClipThreads`), taken when the producer starts.
    let threads: ClipThreads
    let onEnd: @Sendable (PlaybackResult) -> Void

    /// Buffers frames are scaled into, reused once neither the queue nor the display loop
    /// holds them (at most `queueBound + 3` kept).
    private var pool: [Frame] = []
    /// Timeline minus clip time in this pass of a loop.
    private var offset = 0.0
    private var producedThisPass = 0
    private var producedEver = 0
    /// Clip time and duration of the last frame decoded.
    private var last: (time: Double, duration: Double)?
    /// The next frame queued starts the sound (the start, after a seek, after a loop).
    private var nextStartsSound = true
    private var soundPlaying = false
    private var soundPaused = false
    /// Sound handed over while paused: it starts where the picture is at the resume.
    private var soundOwed = false
    private var lastReport = -Double.infinity

    init(
        decoder: ClipDecoder, loop: Bool, control: PlaybackControl, sound: ClipSound?, background: RGB,
        threads: ClipThreads, onEnd: @escaping @Sendable (PlaybackResult) -> Void
    ) {
        self.decoder = decoder; self.loop = loop; self.control = control; self.sound = sound
        self.background = background; self.threads = threads; self.onEnd = onEnd
    }

    func run(_ source: ClipSource) {
        // On this thread, which yielded to the display: the decoder's threads inherit that.
        decoder.useThreads(threads)
        let info = decoder.info
        let loop = self.loop
        control.update(notify: true) {
            $0 = PlaybackStatus(); $0.state = .playing; $0.duration = info.duration; $0.loop = loop
        }
        let end = produce(source)
        sound?.stop()
        source.soundEnded()?.stop()
        let counts = source.withShared { ($0.pacing.presented, $0.pacing.dropped, $0.position) }
        let errors = decoder.decodeErrors
        decoder.close()
        pool.removeAll()
        control.update(notify: true) {
            $0.state = .stopped
            $0.presented = counts.0; $0.dropped = counts.1; $0.decodeErrors = errors
            if let p = counts.2 { $0.position = p }
        }
        onEnd(PlaybackResult(end: end, status: control.status))
    }

    private func produce(_ s: ClipSource) -> PlaybackEnd {
        while true {
            pickUpSound(s)
            followTheSound(s)
            report(s)
            let cmd = control.pending()
            if cmd.stop { return .stopped }
            if cmd.seek != nil, let t = control.takeSeek() {
                s.withShared {
                    $0.queue.removeAll(); $0.pacing.reanchor(); $0.soundFrom = nil; $0.position = nil
                }
                do { try decoder.seek(to: t) } catch { return .failed("seek to \(t) s failed: \(error)") }
                if soundPlaying || soundPaused { sound?.pause() }
                soundPlaying = false; soundPaused = false; nextStartsSound = true; soundOwed = false
                if cmd.pause {
                    // Show the frame sought to once, and stay paused.
                    do {
                        if let f = try decoder.nextFrame() { try queue(f, still: true, into: s) }
                    } catch { return .failed("\(error)") }
                }
                let paused = control.pending().pause
                let duration = decoder.info.duration
                control.update(notify: true) {
                    $0.position = max(0, min(t, duration > 0 ? duration : t))
                    $0.state = paused ? .paused : .playing
                }
                continue
            }
            if cmd.pause {
                control.update { $0.state = .paused }
                if soundPlaying { sound?.pause(); soundPlaying = false; soundPaused = true }
                control.waitWhilePaused()
                let after = control.pending()
                if !after.pause {
                    control.update { $0.state = .playing }
                    if soundPaused && after.seek == nil && !after.stop {
                        sound?.resume(); soundPlaying = true; soundPaused = false
                    }
                    if soundOwed && after.seek == nil && !after.stop { startSoundWhereThePictureIs(s) }
                }
                continue
            }
            if control.status.state != .playing { control.update { $0.state = .playing } }
            if s.waitForTake(if: { $0.queue.count >= ClipSource.queueBound }) { continue }

            let next: DecodedFrame?
            do { next = try decoder.nextFrame() } catch { return .failed("\(error)") }
            guard let frame = next else {
                if let why = decoder.readError { return .failed("the clip is damaged: \(why)") }
                let looping = control.loopAsked ?? loop
                control.update { $0.loop = looping }
                if looping && producedThisPass > 0 {
                    do { try decoder.seek(to: 0) } catch { return .failed("\(error)") }
                    if let l = last { offset += l.time + l.duration }
                    producedThisPass = 0
                    nextStartsSound = true
                    continue
                }
                guard producedEver > 0 else { return .failed("no frame of the clip could be decoded") }
                // The last frame stays its time on screen; a command meanwhile is obeyed (a
                // seek back plays on).
                let end = offset + (last.map { $0.time + $0.duration } ?? 0)
                let serial = control.serial
                while control.serial == serial {
                    followTheSound(s)
                    report(s)
                    if s.withShared({ $0.pacing.isOver(end: end, queued: $0.queue.count) }) { return .ended }
                    _ = s.waitForTake(if: { _ in true })
                }
                continue
            }
            do { try queue(frame, still: false, into: s) } catch { return .failed("\(error)") }
        }
    }

    /// Scales `f` to the pane into a free buffer, bars included, and queues it (unless it is
    /// already too late to be shown, or the pane changed size meanwhile).
    private func queue(_ f: DecodedFrame, still: Bool, into s: ClipSource) throws {
        let time = f.time + offset
        last = (f.time, f.duration)
        producedThisPass += 1
        producedEver += 1
        if !still && s.withShared({ $0.pacing.isStale(time: time, duration: f.duration) }) { return }
        let (w, h) = s.withShared { ($0.width, $0.height) }
        let target = buffer(width: w, height: h)
        // The bars are the buffer's own: made in the background and never written since (a
        // buffer is kept for one size, where the picture's rect never moves, and `draw`
        // writes only inside it), so only the picture is written per frame.
        let rect = Fit.rect(for: decoder.info.shape, width: w, height: h)
        try f.draw(into: target, rect: rect)
        let q = ClipHandOver.Queued(
            frame: target, time: time, clipTime: f.time, duration: f.duration, still: still,
            startsSound: !still && nextStartsSound)
        let queued = s.withShared {
            guard $0.width == w && $0.height == h else { return false }
            $0.push(q)
            return true
        }
        if queued && q.startsSound { nextStartsSound = false }
    }

    /// A buffer of the pane's size no one else holds (not queued, not kept by the display
    /// loop); a new one is all background.
    private func buffer(width w: Int, height h: Int) -> Frame {
        pool.removeAll { $0.width != w || $0.height != h }
        for i in pool.indices {
            if isKnownUniquelyReferenced(&pool[i]) { return pool[i] }
        }
        let f = Frame(width: w, height: h, color: background)
        if pool.count < ClipSource.queueBound + 3 { pool.append(f) }
        return f
    }

    /// Takes the sound handed over (or let go) since the last look: the one it replaces was
    /// stopped by whoever moved it (so the device is free for the next). A new one starts
    /// where the picture is; before the first frame, with it.
    private func pickUpSound(_ s: ClipSource) {
        guard let change = s.takeSoundChange() else { return }
        sound = change
        soundPlaying = false; soundPaused = false; soundOwed = false
        guard sound != nil else { return }
        if control.pending().pause { soundOwed = true } else { startSoundWhereThePictureIs(s) }
    }

    private func startSoundWhereThePictureIs(_ s: ClipSource) {
        soundOwed = false
        s.withShared { h in
            if let p = h.position { h.soundFrom = p }
        }
    }

    /// Starts the sound when the display loop took the frame it starts with; then keeps the
    /// pacing on the sound's clock.
    private func followTheSound(_ s: ClipSource) {
        guard let sound else { return }
        if let from = s.withShared({ h -> Double? in
            defer { h.soundFrom = nil }
            return h.soundFrom
        }) {
            sound.play(from: from)
            soundPlaying = true; soundPaused = false
        }
        guard soundPlaying, let o = sound.origin(at: MonotonicClock.now()) else { return }
        s.withShared { $0.pacing.follow(origin: o - $0.takenOffset) }
    }

    /// The position and counts into the status; `onChange` about twice a second (by the
    /// display loop's refresh times).
    private func report(_ s: ClipSource) {
        let (position, presented, dropped, refresh) = s.withShared {
            ($0.position, $0.pacing.presented, $0.pacing.dropped, $0.pacing.lastRefresh)
        }
        var notify = false
        if let r = refresh, r - lastReport >= 0.5 {
            lastReport = r
            notify = true
        }
        let errors = decoder.decodeErrors
        control.update(notify: notify) {
            if let position { $0.position = position }
            $0.presented = presented; $0.dropped = dropped; $0.decodeErrors = errors
        }
    }
}
