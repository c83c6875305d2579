import CFFmpeg
import Foundation
import LecternModel

/// libswscale into XRGB8888: converts and scales a decoded picture straight into a
/// sub-rectangle of an output frame (destination pointer = base + y·stride + x·4,
/// destination stride = the frame's), keeping its SwsContexts from frame to frame. A planar
/// 4:2:0 picture (nearly every clip) is scaled in 4:2:0 first and then converted, as
/// FFmpeg's scale filter followed by a format conversion does; anything else in one step.
///
/// AV_PIX_FMT_BGR0 is bytes B, G, R, 0: on a little-endian board that is the 32-bit word
/// 0x00RRGGBB, Lectern's XRGB8888.
///
/// Rotated clips (display matrix 90/180/270) are scaled into a scratch buffer of the rect's
/// size in the picture's own orientation, then turned while copied into the rect: one extra
/// copy of the rect, for rotated clips only.
///
/// libswscale's SIMD writers may write a few pixels past the end of each row when the width
/// is not a multiple of 16 (14 measured on x86). `draw` promises to write nothing outside
/// the rect, so for such widths it saves and restores the strip right of the rect, or, when
/// the rect touches the frame's right edge (the overrun could leave the buffer), scales into
/// padded scratch and copies the rows.
final class FrameScaler {
    /// The conversion into XRGB8888 (and the scaling too, when there is no `resize`).
    private var sws: OpaquePointer?
    /// Planar 4:2:0 pictures are scaled first into `between` (4:2:0 at the rect's size) and
    /// then converted: the two steps FFmpeg's scale filter and format conversion take, with
    /// SIMD for both, where scaling straight into RGB writes through libswscale's C code
    /// (measured: a quarter more of the scaler's CPU for a 1080p clip in half the wall).
    private var resize: OpaquePointer?
    private var between: UnsafeMutablePointer<AVFrame>?
    private var key: Key?
    private var scratch: UnsafeMutableRawPointer?
    private var scratchBytes = 0
    private var strip: UnsafeMutableRawPointer?
    private var stripBytes = 0
    /// Bicubic, like FFmpeg's scale filter by default.
    static let flags = SWS_BICUBIC

    private struct Key: Equatable {
        var srcW: Int32, srcH: Int32, srcFormat: Int32, dstW: Int, dstH: Int
        var colorspace: Int32, fullRange: Bool
    }

    deinit { release() }

    func release() {
        forgetContexts()
        scratch?.deallocate(); scratch = nil; scratchBytes = 0
        strip?.deallocate(); strip = nil; stripBytes = 0
    }

    func draw(_ f: UnsafeMutablePointer<AVFrame>, rotation: Int, into target: Frame, rect: PixelRect) throws {
        guard !rect.isEmpty, rect.x >= 0, rect.y >= 0, rect.maxX <= target.width, rect.maxY <= target.height else {
            throw VideoError("the picture's rectangle \(rect) is not inside the \(target.width)×\(target.height) frame")
        }
        let rot = ((rotation % 360) + 360) % 360 / 90 * 90
        let (dw, dh) = rot % 180 == 0 ? (rect.width, rect.height) : (rect.height, rect.width)
        let ctx = try context(for: f, width: dw, height: dh)
        let dst = target.baseAddress + rect.y * target.stride + rect.x * 4
        if rot == 0 {
            if dw % 16 == 0 {
                try scale(ctx, f, into: dst, stride: target.stride, rows: dh)
            } else if rect.maxX + Self.overrun <= target.width {
                // The scaler's SIMD writes whole blocks of pixels, up to a few past the row
                // (measured: 14 on x86 for widths not a multiple of 16): keep what is there.
                let keep = buffer(&strip, &stripBytes, Self.overrun * 4 * dh)
                for y in 0..<dh {
                    (keep + y * Self.overrun * 4).copyMemory(from: dst + y * target.stride + dw * 4, byteCount: Self.overrun * 4)
                }
                try scale(ctx, f, into: dst, stride: target.stride, rows: dh)
                for y in 0..<dh {
                    (dst + y * target.stride + dw * 4).copyMemory(from: keep + y * Self.overrun * 4, byteCount: Self.overrun * 4)
                }
            } else {
                // Against the frame's right edge: the overrun could leave the buffer. Scale into
                // padded scratch and copy the rows.
                let pitch = (dw + Self.overrun) * 4
                let tmp = buffer(&scratch, &scratchBytes, pitch * dh)
                try scale(ctx, f, into: tmp, stride: pitch, rows: dh)
                for y in 0..<dh {
                    (dst + y * target.stride).copyMemory(from: tmp + y * pitch, byteCount: dw * 4)
                }
            }
            return
        }
        let pitch = (dw + Self.overrun) * 4
        let tmp = buffer(&scratch, &scratchBytes, pitch * dh)
        try scale(ctx, f, into: tmp, stride: pitch, rows: dh)
        Self.turn(
            UnsafePointer(tmp.assumingMemoryBound(to: UInt32.self)), width: dw, height: dh, pitch: pitch / 4,
            clockwise: rot, into: dst, stride: target.stride)
    }

    /// Pixels past the end of a row the scaler may write (with margin).
    static let overrun = 64

    private func buffer(_ p: inout UnsafeMutableRawPointer?, _ size: inout Int, _ bytes: Int) -> UnsafeMutableRawPointer {
        if size < bytes || p == nil {
            p?.deallocate()
            p = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
            size = bytes
        }
        return p!
    }

    private func context(for f: UnsafeMutablePointer<AVFrame>, width: Int, height: Int) throws -> OpaquePointer {
        var format = f.pointee.format
        var full = f.pointee.color_range == AVCOL_RANGE_JPEG
        // The deprecated "J" formats are the plain ones in full range.
        switch format {
        case AV_PIX_FMT_YUVJ420P.rawValue: format = AV_PIX_FMT_YUV420P.rawValue; full = true
        case AV_PIX_FMT_YUVJ422P.rawValue: format = AV_PIX_FMT_YUV422P.rawValue; full = true
        case AV_PIX_FMT_YUVJ444P.rawValue: format = AV_PIX_FMT_YUV444P.rawValue; full = true
        case AV_PIX_FMT_YUVJ440P.rawValue: format = AV_PIX_FMT_YUV440P.rawValue; full = true
        default: break
        }
        let k = Key(
            srcW: f.pointee.width, srcH: f.pointee.height, srcFormat: format, dstW: width, dstH: height,
            colorspace: Int32(bitPattern: f.pointee.colorspace.rawValue), fullRange: full)
        if k == key, let s = sws { return s }
        forgetContexts()
        let pixfmt = AVPixelFormat(rawValue: format)
        guard k.srcW > 0, k.srcH > 0, sws_isSupportedInput(pixfmt) != 0 else {
            let name = av_get_pix_fmt_name(pixfmt).map { String(cString: $0) } ?? "unknown"
            throw VideoError("the picture format \(name) can't be converted")
        }
        var from = (w: k.srcW, h: k.srcH)
        if format == AV_PIX_FMT_YUV420P.rawValue, (Int(k.srcW), Int(k.srcH)) != (width, height) {
            // What fails here is freed by the next `forgetContexts`, as what succeeds is.
            guard let r = makeContext(from: (k.srcW, k.srcH, format), to: (width, height, format)) else {
                throw VideoError("can't scale \(k.srcW)×\(k.srcH) to \(width)×\(height)")
            }
            resize = r
            guard let b = av_frame_alloc() else { throw VideoError("out of memory for the scaler") }
            between = b
            b.pointee.width = Int32(width); b.pointee.height = Int32(height); b.pointee.format = format
            guard av_frame_get_buffer(b, 0) >= 0 else { throw VideoError("out of memory for the scaler") }
            from = (Int32(width), Int32(height))
        }
        guard let s = makeContext(from: (from.w, from.h, format), to: (width, height, AV_PIX_FMT_BGR0.rawValue)) else {
            forgetContexts()
            throw VideoError("can't scale \(k.srcW)×\(k.srcH) to \(width)×\(height)")
        }
        sws = s
        // Colour matrix and range as the stream says (BT.601 when it says nothing), like
        // FFmpeg's scale filter; RGB out is full range.
        let cs = k.colorspace == AVCOL_SPC_UNSPECIFIED.rawValue ? SWS_CS_DEFAULT : k.colorspace
        _ = sws_setColorspaceDetails(
            s, sws_getCoefficients(cs), full ? 1 : 0,
            sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16)
        key = k
        return s
    }

    /// A context with slice threads, as FFmpeg's scale filter makes; nil if libswscale
    /// refuses the sizes or formats.
    private func makeContext(from: (Int32, Int32, Int32), to: (Int, Int, Int32)) -> OpaquePointer? {
        guard let s = sws_alloc_context() else { return nil }
        let o = UnsafeMutableRawPointer(s)
        av_opt_set_int(o, "srcw", Int64(from.0), 0)
        av_opt_set_int(o, "srch", Int64(from.1), 0)
        av_opt_set_int(o, "src_format", Int64(from.2), 0)
        av_opt_set_int(o, "dstw", Int64(to.0), 0)
        av_opt_set_int(o, "dsth", Int64(to.1), 0)
        av_opt_set_int(o, "dst_format", Int64(to.2), 0)
        av_opt_set_int(o, "sws_flags", Int64(Self.flags), 0)
        av_opt_set_int(o, "threads", Int64(threads), 0)
        guard sws_init_context(s, nil, nil) >= 0 else {
            sws_freeContext(s)
            return nil
        }
        return s
    }

    private func forgetContexts() {
        sws_freeContext(sws); sws = nil
        sws_freeContext(resize); resize = nil
        av_frame_free(&between)
        key = nil
    }

    /// Slice threads for scaling (one per core, at most 4, unless a clip's share says fewer):
    /// a change takes effect at the next picture, through a new context.
    var threads = ClipThreads.alone.scaler {
        didSet { if threads != oldValue { forgetContexts() } }
    }

    /// Scales `f` into `dst` (rows `stride` bytes apart) through the frame API, the one that
    /// uses the slice threads: the destination is described by an AVFrame over our memory.
    private func scale(
        _ ctx: OpaquePointer, _ f: UnsafeMutablePointer<AVFrame>,
        into dst: UnsafeMutableRawPointer, stride: Int, rows: Int
    ) throws {
        guard let target = av_frame_alloc() else { throw VideoError("out of memory for the scaler") }
        var out = target as UnsafeMutablePointer<AVFrame>?
        defer { av_frame_free(&out) }
        let bytes = UnsafeMutablePointer<UInt8>(OpaquePointer(dst))
        // Our memory, lent: freeing the reference frees nothing.
        let width = key?.dstW ?? 0
        guard let buffer = av_buffer_create(bytes, (rows - 1) * stride + width * 4, { _, _ in }, nil, 0) else {
            throw VideoError("out of memory for the scaler")
        }
        target.pointee.buf.0 = buffer
        target.pointee.data.0 = bytes
        target.pointee.linesize.0 = Int32(stride)
        target.pointee.width = Int32(width)
        target.pointee.height = Int32(rows)
        target.pointee.format = AV_PIX_FMT_BGR0.rawValue
        var source = f
        if let resize, let between {
            let r = sws_scale_frame(resize, between, f)
            guard r >= 0 else { throw VideoError("scaling failed (\(ClipDecoder.errorText(r)))") }
            source = between
        }
        let r = sws_scale_frame(ctx, target, source)
        guard r >= 0 else { throw VideoError("scaling failed (\(ClipDecoder.errorText(r)))") }
    }

    /// Copies `src` (width×height, rows `pitch` pixels apart) into `dst` turned `clockwise`
    /// degrees (90, 180, 270), in tiles so both sides stay in cache.
    static func turn(
        _ src: UnsafePointer<UInt32>, width sw: Int, height sh: Int, pitch: Int, clockwise: Int,
        into dst: UnsafeMutableRawPointer, stride: Int
    ) {
        @inline(__always) func row(_ y: Int) -> UnsafeMutablePointer<UInt32> {
            (dst + y * stride).assumingMemoryBound(to: UInt32.self)
        }
        switch clockwise {
        case 180:
            for y in 0..<sh {
                let d = row(y), s = src + (sh - 1 - y) * pitch
                for x in 0..<sw { d[x] = s[sw - 1 - x] }
            }
        case 90, 270:
            // The turned picture is sh wide and sw high.
            let tile = 32
            for ty in Swift.stride(from: 0, to: sw, by: tile) {
                for tx in Swift.stride(from: 0, to: sh, by: tile) {
                    for y in ty..<min(ty + tile, sw) {
                        let d = row(y)
                        if clockwise == 90 {
                            // D(x, y) = S(y, sh-1-x)
                            for x in tx..<min(tx + tile, sh) { d[x] = src[(sh - 1 - x) * pitch + y] }
                        } else {
                            // D(x, y) = S(sw-1-y, x)
                            let c = sw - 1 - y
                            for x in tx..<min(tx + tile, sh) { d[x] = src[x * pitch + c] }
                        }
                    }
                }
            }
        default:
            for y in 0..<sh { row(y).update(from: src + y * pitch, count: sw) }
        }
    }
}
