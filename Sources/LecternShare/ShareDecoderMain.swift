import Foundation
import Glibc
import LecternModel
import LecternPipeline
import LecternVideo

/// A share's decoder process (`lecternd --share-decoder`, started by `ShareDecoderProcess`):
/// confined as the render workers are (`RenderWorkerMain.confine`: its address space, its
/// CPU time per picture, gone with the service, the first the kernel kills when memory runs
/// out), it decodes the pictures it is asked to from the shared input (descriptor 4) and
/// draws the newest into the frame each request brings, one at a time, until the service
/// closes the socket (descriptor 3). Whatever the stream does to FFmpeg here — a crash, a
/// loop, memory — costs this process, and so only its share.
public enum ShareDecoderMain {
    public static let socketDescriptor: Int32 = 3
    public static let inputDescriptor: Int32 = 4

    public static func run(memoryMB: Int, cpuSeconds: Int, maxSide: Int, maxPixels: Int) -> Never {
        let s = socketDescriptor
        RenderWorkerMain.confine(keeping: inputDescriptor, memoryMB: memoryMB, what: "share decoder")
        var st = stat()
        guard fstat(inputDescriptor, &st) == 0, st.st_size > 0,
            let mapped = mmap(nil, Int(st.st_size), PROT_READ, MAP_SHARED, inputDescriptor, 0), mapped != MAP_FAILED
        else { fail("the shared input can't be mapped: \(String(cString: strerror(errno)))") }
        let input = UnsafeRawBufferPointer(start: mapped, count: Int(st.st_size))
        // The service keeps at most `ShareDecoderProcess.poolCapacity` frames for a share;
        // mapping them all keeps a steady share free of page faults.
        var mappings = SharedFrame.Mappings(capacity: ShareDecoderProcess.poolCapacity + 2)
        var audio: ShareAudioDecoder?
        var decoder: ShareDecoder?
        var current: (generation: UInt32, codec: UInt8)?
        send(s, ShareDecoderWire.Reply(serial: 0, status: .noPicture))   // ready
        while true {
            guard let (bytes, fd) = SeqPacket.receive(s, max: ShareDecoderWire.maxMessage) else { exit(0) }
            guard let r = try? ShareDecoderWire.decodeRequest(bytes) else {
                if fd >= 0 { close(fd) }
                fail("a request the decoder can't read")
            }
            RenderWorkerMain.allowCPU(seconds: cpuSeconds)
            var reply = ShareDecoderWire.Reply(serial: r.serial, status: .noPicture)
            do {
                guard fd >= 0, let memory = mappings.map(fd, byteCount: r.byteCount) else {
                    throw VideoError("the frame to draw into can't be mapped")
                }
                if r.operation == .audio {
                    guard Int(r.length) <= input.count, r.width >= ShareAudioDecoder.maxFrames else { throw VideoError("a sound packet too large") }
                    if audio?.channels != Int(r.codec) {
                        audio = nil
                        audio = try ShareAudioDecoder(channels: Int(r.codec))
                    }
                    let n = try audio!.decode(
                        UnsafeRawBufferPointer(rebasing: input[0..<Int(r.length)]), into: memory.assumingMemoryBound(to: Int16.self))
                    reply.status = .drawn
                    reply.count = UInt32(n)
                    send(s, reply)
                    continue
                }
                let frame = Frame(wrapping: memory, width: r.width, height: r.height, stride: r.width * 4)
                if r.operation == .decode {
                    guard Int(r.length) <= input.count else { throw VideoError("a picture of \(r.length) bytes is larger than the input") }
                    if decoder == nil || current?.generation != r.generation || current?.codec != r.codec {
                        decoder?.close()
                        decoder = nil
                        decoder = try ShareDecoder(codec: codec(r.codec), maxSide: maxSide, maxPixels: maxPixels)
                        current = (r.generation, r.codec)
                    }
                    guard try decoder!.decode(UnsafeRawBufferPointer(rebasing: input[0..<Int(r.length)])) else {
                        send(s, reply)
                        continue
                    }
                }
                if let decoder, try decoder.draw(into: frame, background: r.background) { reply.status = .drawn }
            } catch {
                reply.status = .failed
                reply.message = "\(error)"
            }
            send(s, reply)
        }
    }

    static func codec(_ c: UInt8) throws -> ShareDecoder.Codec {
        switch c {
        case 1: return .h264
        case 2: return .vp8
        case 3: return .vp9
        default: throw VideoError("codec \(c) is not one a share uses")
        }
    }

    private static func send(_ s: Int32, _ reply: ShareDecoderWire.Reply) {
        guard SeqPacket.send(s, ShareDecoderWire.encode(reply)) else { exit(0) }   // the service is gone
    }

    private static func fail(_ why: String) -> Never {
        FileHandle.standardError.write(Data("lecternd share decoder: \(why)\n".utf8))
        exit(2)
    }
}
