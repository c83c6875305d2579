import CPangoCairo
import Foundation
import LecternModel
import LecternRender

/// The deck made of photos: one page per picture, of the picture's aspect
/// (`PhotoFit.page`), drawn with cairo's PDF surface. A photo's page embeds a JPEG of the
/// picture as it is (cairo writes JPEG data given as the surface's MIME data unchanged);
/// a lossless source's page keeps its pixels exactly (Flate).
final class PhotoPDFWriter {
    private let surface: OpaquePointer
    private(set) var pages = 0

    init(path: String) throws {
        surface = cairo_pdf_surface_create(path, PhotoFit.longerSidePoints, PhotoFit.longerSidePoints)
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw ContentError.unreadable(path: path, reason: "can't write the deck here")
        }
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "Lectern")
    }

    deinit { cairo_surface_destroy(surface) }

    /// Adds `picture` as the next page, letting go of its pixels once they are copied;
    /// `jpegQuality` nil: lossless. Throws `noMemory` when the page's surface can't be had.
    func add(_ picture: consuming VipsDecoder.Pixels, jpegQuality: Int?) throws {
        let w = picture.width, h = picture.height
        let page = PhotoFit.page(width: w, height: h)
        cairo_pdf_surface_set_size(surface, page.width, page.height)
        // A surface of cairo's own, the picture copied in: cairo may hold it past this page.
        let image = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(w), Int32(h))
        defer { cairo_surface_destroy(image) }
        guard cairo_surface_status(image) == CAIRO_STATUS_SUCCESS, let data = cairo_image_surface_get_data(image) else { throw Self.noMemory }
        let stride = Int(cairo_image_surface_get_stride(image))
        for y in 0..<h { memcpy(data + y * stride, picture.bgrx + y * w * 4, w * 4) }
        _ = consume picture   // the decoded copy goes before the JPEG is made
        cairo_surface_mark_dirty(image)
        if let jpegQuality {
            let frame = Frame(wrapping: UnsafeMutableRawPointer(data), width: w, height: h, stride: stride)
            guard let jpeg = JPEG.encode(frame, quality: jpegQuality) else { throw Self.noMemory }
            // cairo keeps the bytes until the page is written; they are freed with the surface.
            let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: jpeg.count)
            bytes.initialize(from: jpeg, count: jpeg.count)
            let status = cairo_surface_set_mime_data(
                image, CAIRO_MIME_TYPE_JPEG, bytes, UInt(jpeg.count),
                { $0?.assumingMemoryBound(to: UInt8.self).deallocate() }, bytes)
            if status != CAIRO_STATUS_SUCCESS {
                bytes.deallocate()
                throw Self.noMemory
            }
        }
        let cr = cairo_create(surface)
        defer { cairo_destroy(cr) }
        cairo_scale(cr, page.width / Double(w), page.height / Double(h))
        cairo_set_source_surface(cr, image, 0, 0)
        cairo_paint(cr)
        cairo_show_page(cr)
        try check()
        pages += 1
    }

    /// The page's memory could not be had (within the child's budget).
    static let noMemory = ContentError.damaged(detail: "out of memory")

    /// Ends the file (the PDF is complete once this returns without throwing).
    func finish() throws {
        cairo_surface_finish(surface)
        try check()
    }

    private func check() throws {
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else { throw ContentError.damaged(detail: String(cString: cairo_status_to_string(status))) }
    }
}
