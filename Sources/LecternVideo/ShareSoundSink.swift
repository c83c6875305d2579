/// Where a live share's sound goes (docs/protocol.md §29.9): the ALSA output clips' sound
/// plays on, at the room's volume (`ShareSoundTrack`, LecternSound). It tells when the
/// sound captured at a moment is heard, so that the picture is shown with it.
public protocol ShareSoundSink: AnyObject, Sendable {
    /// Samples (48 kHz stereo S16 interleaved) whose first was captured at `capture`
    /// (seconds, the sender's clock). Never waits.
    func push(_ samples: [Int16], capture: Double)
    /// The monotonic time the sound captured at `capture` is (or was) heard; nil while
    /// none is playing.
    func heard(capture: Double) -> Double?
    /// Stops and lets go of the device.
    func stop()
}
