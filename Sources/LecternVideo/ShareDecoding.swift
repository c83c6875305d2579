import LecternModel

/// What decodes a live share's pictures and draws the newest into a buffer of its pane's
/// size (docs/protocol.md §29.6): a decoder process of the share's own
/// (`ShareDecoderProcess`, what the service runs) or this process (`InProcessShareDecoding`:
/// `lectern-bench`'s reference, and a service with no lecternd to start). Used by one
/// thread only, the share's decode loop (`ShareDecodeLoop`).
public protocol ShareDecoding: AnyObject {
    /// Decodes one encoded picture of stream `generation` (a new generation, or a new codec:
    /// a new decoder, which starts at its next key frame) and returns the newest picture
    /// fitted with bars into a `width`×`height` frame, or nil when no picture came out.
    /// Throws `ShareSource.Failure`: the share can't go on.
    func decode(_ data: [UInt8], codec: ShareDecoder.Codec, generation: Int, width: Int, height: Int) throws -> Frame?
    /// The newest picture again at a new size (nil: none yet).
    func redraw(width: Int, height: Int) throws -> Frame?
    /// Decodes one Opus packet of the share's sound (`channels` 1 or 2) into 48 kHz stereo
    /// S16 interleaved samples. Throws `ShareSource.Failure`.
    func decodeAudio(_ data: [UInt8], channels: Int) throws -> [Int16]
    /// The decoder's process id (nil: it decodes in this process).
    var processID: Int32? { get }
    /// Ends the decoder (its process, if any); it may be called more than once.
    func close()
}

/// Pictures drawn into frames of one size are reused once nobody holds them (neither the
/// hand-over to the display loop nor the loop itself): at most `capacity` are kept.
public struct ShareFramePool<Extra> {
    public let capacity: Int
    private var frames: [(frame: Frame, extra: Extra)] = []
    public init(capacity: Int) { self.capacity = capacity }

    /// A free frame of `width`×`height`, or nil (frames of other sizes are let go).
    public mutating func free(width: Int, height: Int) -> (frame: Frame, extra: Extra)? {
        frames.removeAll { $0.frame.width != width || $0.frame.height != height }
        for i in frames.indices where isKnownUniquelyReferenced(&frames[i].frame) { return frames[i] }
        return nil
    }

    /// Keeps `frame` for reuse if there is room.
    public mutating func keep(_ frame: Frame, _ extra: Extra) {
        if frames.count < capacity { frames.append((frame, extra)) }
    }

    public mutating func removeAll() { frames.removeAll() }

    /// Frames a share keeps: the display loop's, the newest few waiting for their sound
    /// (`ShareSource`'s lip-sync queue), one being drawn, a spare.
    public static var shareCapacity: Int { ShareSource.syncQueue + 3 }
}

/// A share's decoder in this process, on the decode loop's thread: FFmpeg's crash would be
/// the service's (which is why the service runs `ShareDecoderProcess`); a stall is caught by
/// `ShareSource`'s watchdog, which ends the share and leaves the thread to finish alone.
public final class InProcessShareDecoding: ShareDecoding {
    let maxSide: Int
    let maxPixels: Int
    let background: RGB
    private var decoder: ShareDecoder?
    private var generation = -1
    private var codec: ShareDecoder.Codec?
    private var pool = ShareFramePool<Void>(capacity: ShareFramePool<Void>.shareCapacity)
    private var audio: ShareAudioDecoder?

    public init(maxSide: Int, maxPixels: Int, background: RGB) {
        self.maxSide = maxSide
        self.maxPixels = maxPixels
        self.background = background
    }

    deinit { close() }

    public func decode(_ data: [UInt8], codec: ShareDecoder.Codec, generation: Int, width: Int, height: Int) throws -> Frame? {
        do {
            if decoder == nil || generation != self.generation || codec != self.codec {
                decoder?.close()
                decoder = try ShareDecoder(codec: codec, maxSide: maxSide, maxPixels: maxPixels)
                self.generation = generation
                self.codec = codec
            }
            guard try decoder!.decode(data) else { return nil }
            return try draw(width: width, height: height)
        } catch let e as ShareSource.Failure {
            throw e
        } catch {
            throw ShareSource.Failure.damaged("\(error)")
        }
    }

    public func redraw(width: Int, height: Int) throws -> Frame? {
        do { return try draw(width: width, height: height) } catch { throw ShareSource.Failure.damaged("\(error)") }
    }

    public var processID: Int32? { nil }

    public func decodeAudio(_ data: [UInt8], channels: Int) throws -> [Int16] {
        do {
            if audio?.channels != channels { audio = try ShareAudioDecoder(channels: channels) }
            return try audio!.decode(data)
        } catch {
            throw ShareSource.Failure.damaged("its sound: \(error)")
        }
    }

    public func close() {
        decoder?.close()
        decoder = nil
        audio?.close()
        audio = nil
        pool.removeAll()
    }

    private func draw(width: Int, height: Int) throws -> Frame? {
        guard let decoder, decoder.hasPicture else { return nil }
        let target: Frame
        if let f = pool.free(width: width, height: height) {
            target = f.frame
        } else {
            target = Frame(width: width, height: height, color: background)
            pool.keep(target, ())
        }
        return try decoder.draw(into: target, background: background) ? target : nil
    }
}
