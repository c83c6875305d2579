import CPangoCairo
import Foundation
import LecternCore

/// The admin's logo on the idle screen (`display.logo`, a PNG): checked before cairo
/// decodes it (every input is hostile: at most `maxBytes` on disk and `maxSide` pixels a
/// side, read from the PNG header, so a small file can't inflate to gigabytes), drawn
/// scaled into a box with its aspect kept.
public enum IdleLogo {
    public static let maxBytes = 4 << 20
    public static let maxSide = 4096

    /// Why the file at `path` can't be a logo; nil when it can.
    public static func problem(path: String) -> String? {
        guard let h = FileHandle(forReadingAtPath: path) else { return "can't be read" }
        defer { try? h.close() }
        let head = h.readData(ofLength: 24)
        let sig: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard head.count == 24, Array(head.prefix(8)) == sig, Array(head[12..<16]) == Array("IHDR".utf8) else {
            return "is not a PNG file (SVG logos are not supported yet: convert it, e.g. rsvg-convert -h 256 logo.svg > logo.png)"
        }
        let w = head[16..<20].reduce(0) { $0 << 8 | Int($1) }, hgt = head[20..<24].reduce(0) { $0 << 8 | Int($1) }
        guard w > 0, hgt > 0, w <= maxSide, hgt <= maxSide else { return "is \(w)×\(hgt) pixels: at most \(maxSide) a side" }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= maxBytes else { return "is \(size) bytes: at most \(maxBytes)" }
        return nil
    }

    /// Draws the PNG at `path` centred in `box`, scaled to fit; returns false (drawing
    /// nothing) when it isn't a usable logo.
    @discardableResult
    static func draw(_ cr: OpaquePointer, path: String, in box: PixelRect) -> Bool {
        guard problem(path: path) == nil, let img = cairo_image_surface_create_from_png(path) else { return false }
        defer { cairo_surface_destroy(img) }
        guard cairo_surface_status(img) == CAIRO_STATUS_SUCCESS else { return false }
        let w = Double(cairo_image_surface_get_width(img)), h = Double(cairo_image_surface_get_height(img))
        guard w > 0, h > 0 else { return false }
        let scale = min(Double(box.width) / w, Double(box.height) / h)
        cairo_save(cr)
        cairo_translate(cr, Double(box.x) + (Double(box.width) - w * scale) / 2, Double(box.y) + (Double(box.height) - h * scale) / 2)
        cairo_scale(cr, scale, scale)
        cairo_set_source_surface(cr, img, 0, 0)
        cairo_paint(cr)
        cairo_restore(cr)
        return true
    }
}
