/// A clip's sound as a clip source's producer drives it (`ClipSource`'s `sound`): it
/// starts, pauses, seeks and stops it with the picture, and its clock (`AudioClock`) sets
/// the picture's timeline. Implemented over ALSA by `LecternSound.SoundTrack`; a clip
/// without sound, or a machine without a sound card, plays with none (the picture keeps
/// its own time, as before).
public protocol ClipSound: AnyObject {
    /// Plays from clip time `seconds` (the start, after a seek, after a loop).
    func play(from seconds: Double)
    /// Stops the device where it is (what was queued is dropped, so the sound stops at once).
    func pause()
    /// Goes on from where the pause left it.
    func resume()
    /// Silent from now on; frees the device.
    func stop()
    /// The monotonic time at which clip time 0 was (would have been) heard, per the sound
    /// device; nil until the device has reported since the last play or resume, or when the
    /// sound has ended (the picture then keeps its own time).
    func origin(at now: Double) -> Double?
}
