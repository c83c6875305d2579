import Foundation
import LecternModel
import LecternSound
import LecternVideo
import Synchronization

/// Where clips' sound comes from and goes to: the device `audio_device` resolved to at
/// start (`SoundDevice`), and the room's volume. For each clip it opens the clip's sound
/// and the device; a clip without sound, no device, or a device that can't be opened gives
/// none — the clip plays silent, with one log line, and no one is sent an error.
final class ClipSoundSource: Sendable {
    let pcm: String?
    let level = SoundLevel()
    private let log: @Sendable (String) -> Void
    /// The last failure logged (each is logged once, until a clip plays).
    private let lastFailure = Mutex<String?>(nil)

    init(audioDevice: AudioDevice, log: @escaping @Sendable (String) -> Void, cards: String? = nil) {
        let resolved = cards.map { SoundDevice.resolve(audioDevice, cards: $0) } ?? SoundDevice.resolve(audioDevice)
        pcm = resolved.pcm
        self.log = log
        log(resolved.log)
    }

    /// A live share's sound output on the device (§29.9), or nil (no device, or it can't be
    /// opened now: a clip's sound holds it; the share plays silent, one log line).
    func openShare() -> ShareSoundTrack? {
        guard let pcm else { return nil }
        do {
            let sink = try ALSASink(name: pcm, latency: 0.06)
            log("share sound on \(pcm)")
            return ShareSoundTrack(sink: sink, level: level)
        } catch {
            log("a share's sound can't be played: \(error)")
            return nil
        }
    }

    /// The clip's sound on the device, or nil (silent).
    func open(clip path: String) -> SoundTrack? {
        guard let pcm else { return nil }
        let (decoder, whyNot) = AudioDecoder.open(path: path)
        guard let decoder else {
            log("clip without sound (\(whyNot ?? "?")): it plays silent")
            return nil
        }
        do {
            let sink = try ALSASink(name: pcm)
            lastFailure.withLock { $0 = nil }
            log("clip sound: \(decoder.description) on \(pcm)")
            return SoundTrack(decoder: decoder, sink: sink, level: level)
        } catch {
            decoder.close()
            // One line per change of trouble, not one per clip.
            let text = "\(error)"
            if lastFailure.withLock({ last in
                defer { last = text }
                return last != text
            }) {
                log("sound device unavailable, clips play silent: \(text)")
            }
            return nil
        }
    }
}
