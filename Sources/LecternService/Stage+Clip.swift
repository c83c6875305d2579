import Foundation
import LecternCore
import LecternPipeline
import LecternVideo

extension Stage {
    /// Plays a clip over the whole wall until it ends, is stopped or fails; then the plan
    /// shows again. (Interim until `ClipSource` lands: the clip presents by itself.)
    public func play(_ decoder: ClipDecoder, loop looping: Bool, control: PlaybackControl, sound: ClipSound? = nil) -> PlaybackResult {
        let mode = output.mode
        let s = compositor.settings
        let rect = Fit.rect(for: decoder.info.shape, width: mode.width, height: mode.height, overscanPercent: s.overscanPercent)
        let result = ClipPlayback.play(decoder, on: output, rect: rect, background: s.background, loop: looping, control: control, sound: sound)
        decoder.close()
        loop.post(.output(mode, connected: output.isConnected, changed: true))
        return result
    }
}

extension Stage {
    /// Hands the display loop a moving source for `serial` (a `.clip(serial:)` pane, or the
    /// whole wall with `fullScreen`). The loop takes its frames at each refresh.
    public func attach(serial: Int, _ source: PaneVideoSource, fullScreen: Bool = false) {
        loop.attach(serial: serial, source)
        if fullScreen { loop.post(.fullScreenSource(serial: serial)) }
    }

    /// The source of `serial` is over: its panes show the background, a full-screen one
    /// gives the wall back to the plan.
    public func detach(serial: Int) { loop.detach(serial: serial) }

    /// Compositions the display loop presented so far (tests, the bench).
    public var loopPresents: Int { loop.presents }
}
