import CPangoCairo
import CRSVG
import Foundation
import LecternModel

/// The admin's pictures on the idle screen (`display.logo`, `display.background_image`): a
/// PNG, or an SVG drawn by librsvg at the size it is shown (sharp at any output mode).
/// Checked before they are decoded (every input is hostile: at most `maxBytes` on disk;
/// a PNG at most `maxSide` pixels a side, read from its header, so a small file can't
/// inflate to gigabytes; an SVG must parse, without loading anything it refers to), drawn
/// scaled into a box with its aspect kept: fitted (a logo) or covering it (a background).
public enum IdleLogo {
    public static let maxBytes = 4 << 20
    public static let maxSide = 4096

    enum Kind { case png, svg }

    static func kind(of head: Data) -> Kind? {
        let sig: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        if head.count >= 24, Array(head.prefix(8)) == sig, Array(head[12..<16]) == Array("IHDR".utf8) { return .png }
        let text = String(decoding: head.prefix(512), as: UTF8.self).drop { $0 == "\u{FEFF}" || $0.isWhitespace }
        if text.hasPrefix("<?xml") || text.hasPrefix("<svg") || text.hasPrefix("<!--") || text.hasPrefix("<!DOCTYPE svg") { return .svg }
        return nil
    }

    /// Why the file at `path` can't be a logo or background; nil when it can.
    public static func problem(path: String) -> String? {
        guard let h = FileHandle(forReadingAtPath: path) else { return "can't be read" }
        defer { try? h.close() }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= maxBytes else { return "is \(size) bytes: at most \(maxBytes)" }
        let head = h.readData(ofLength: 512)
        switch kind(of: head) {
        case .png:
            let w = head[16..<20].reduce(0) { $0 << 8 | Int($1) }, hgt = head[20..<24].reduce(0) { $0 << 8 | Int($1) }
            guard w > 0, hgt > 0, w <= maxSide, hgt <= maxSide else { return "is \(w)×\(hgt) pixels: at most \(maxSide) a side" }
            return nil
        case .svg:
            guard let svg = SVG(path: path) else { return "is not an SVG librsvg can read" }
            guard svg.width > 0, svg.height > 0 else { return "is an SVG without a size or viewBox" }
            return nil
        case nil:
            return "is neither a PNG nor an SVG file"
        }
    }

    /// Draws the picture at `path` centred in `box`, scaled to fit (or, with `cover`, to
    /// cover the box, cut at its edges); returns false (drawing nothing) when it isn't usable.
    @discardableResult
    static func draw(_ cr: OpaquePointer, path: String, in box: PixelRect, cover: Bool = false) -> Bool {
        guard problem(path: path) == nil, let h = FileHandle(forReadingAtPath: path) else { return false }
        let head = h.readData(ofLength: 512)
        try? h.close()
        switch kind(of: head) {
        case .png:
            guard let img = cairo_image_surface_create_from_png(path) else { return false }
            defer { cairo_surface_destroy(img) }
            guard cairo_surface_status(img) == CAIRO_STATUS_SUCCESS else { return false }
            let w = Double(cairo_image_surface_get_width(img)), ht = Double(cairo_image_surface_get_height(img))
            guard w > 0, ht > 0 else { return false }
            let scale = cover ? max(Double(box.width) / w, Double(box.height) / ht) : min(Double(box.width) / w, Double(box.height) / ht)
            cairo_save(cr)
            clip(cr, box)
            cairo_translate(cr, Double(box.x) + (Double(box.width) - w * scale) / 2, Double(box.y) + (Double(box.height) - ht * scale) / 2)
            cairo_scale(cr, scale, scale)
            cairo_set_source_surface(cr, img, 0, 0)
            // Covering, a small picture scaled up keeps its edge colour to the box's edge.
            if cover { cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD) }
            cairo_paint(cr)
            cairo_restore(cr)
            return true
        case .svg:
            guard let svg = SVG(path: path), svg.width > 0, svg.height > 0 else { return false }
            let scale = cover ? max(Double(box.width) / svg.width, Double(box.height) / svg.height) : min(Double(box.width) / svg.width, Double(box.height) / svg.height)
            let w = svg.width * scale, ht = svg.height * scale
            var viewport = RsvgRectangle(x: Double(box.x) + (Double(box.width) - w) / 2, y: Double(box.y) + (Double(box.height) - ht) / 2, width: w, height: ht)
            cairo_save(cr)
            clip(cr, box)
            var error: UnsafeMutablePointer<GError>?
            let ok = rsvg_handle_render_document(svg.handle, cr, &viewport, &error) != 0
            if let error { g_error_free(error) }
            cairo_restore(cr)
            return ok
        case nil:
            return false
        }
    }

    private static func clip(_ cr: OpaquePointer, _ box: PixelRect) {
        cairo_rectangle(cr, Double(box.x), Double(box.y), Double(box.width), Double(box.height))
        cairo_clip(cr)
    }

    /// An SVG parsed by librsvg from its bytes (no base file: nothing it refers to is
    /// loaded), with its size in pixels (its width and height, else its viewBox's).
    final class SVG {
        let handle: UnsafeMutablePointer<RsvgHandle>
        let width: Double
        let height: Double

        init?(path: String) {
            guard let data = FileManager.default.contents(atPath: path), data.count <= IdleLogo.maxBytes else { return nil }
            var error: UnsafeMutablePointer<GError>?
            let h = data.withUnsafeBytes { raw in
                rsvg_handle_new_from_data(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), gsize(raw.count), &error)
            }
            if let error { g_error_free(error) }
            guard let h else { return nil }
            handle = h
            var w = 0.0, ht = 0.0
            if rsvg_handle_get_intrinsic_size_in_pixels(h, &w, &ht) == 0 || w <= 0 || ht <= 0 {
                var hasW: gboolean = 0, hasH: gboolean = 0, hasBox: gboolean = 0
                var lw = RsvgLength(), lh = RsvgLength(), box = RsvgRectangle()
                rsvg_handle_get_intrinsic_dimensions(h, &hasW, &lw, &hasH, &lh, &hasBox, &box)
                (w, ht) = hasBox != 0 ? (box.width, box.height) : (0, 0)
            }
            width = w.isFinite ? w : 0
            height = ht.isFinite ? ht : 0
        }

        deinit { g_object_unref(UnsafeMutableRawPointer(handle)) }
    }
}
