import CPangoCairo
import CPoppler
import Foundation
import LecternModel

/// A PDF opened with poppler-glib. Pages are rendered through cairo straight into frames.
///
/// poppler is not safe to use from two threads on one document at once, so every call
/// into it holds the document's lock.
///
/// Sendable unchecked, and why that holds: every stored property is a `let`, and the one
/// thing shared that isn't thread-safe, poppler's document behind `doc`, is used only
/// with `lock` held (this file and its extensions).
public final class PDFDocument: @unchecked Sendable {
    let doc: OpaquePointer
    let lock = NSLock()
    public let pageCount: Int
    public let path: String

    /// Opens `path`, or throws the `ContentError` a presenter should see.
    public init(path: String) throws {
        self.path = path
        // Only the first KiB is read here: poppler reads the rest as it needs it.
        let head: Data
        do {
            let h = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? h.close() }
            head = try h.read(upToCount: 1024) ?? Data()
        } catch {
            throw ContentError.unreadable(path: (path as NSString).lastPathComponent, reason: "no such file or not readable")
        }
        if head.isEmpty { throw ContentError.empty }
        // A PDF starts with %PDF- (readers accept it within the first KiB). Without it, poppler
        // still tries (some exporters write the header late or not at all, and poppler
        // rebuilds the index); a file it can't open then is not a PDF, rather than a damaged one.
        let hasHeader = head.range(of: Data("%PDF-".utf8)) != nil

        guard let uri = g_filename_to_uri(URL(fileURLWithPath: path).standardizedFileURL.path, nil, nil) else {
            throw ContentError.unreadable(path: path, reason: "bad file name")
        }
        defer { g_free(uri) }
        var gerror: UnsafeMutablePointer<GError>?
        guard let d = poppler_document_new_from_file(uri, nil, &gerror) else {
            let code = gerror?.pointee.code ?? -1
            let message = gerror.flatMap { String(cString: $0.pointee.message) } ?? "unknown error"
            if let gerror { g_error_free(gerror) }
            if code == Int32(POPPLER_ERROR_ENCRYPTED.rawValue) { throw ContentError.passwordProtected }
            if !hasHeader { throw ContentError.notAPDF }
            throw ContentError.damaged(detail: message)
        }
        doc = d
        let n = Int(poppler_document_get_n_pages(d))
        guard n > 0 else { g_object_unref(UnsafeMutableRawPointer(d)); throw hasHeader ? ContentError.noPages : ContentError.notAPDF }
        pageCount = n
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(doc)) }

    /// The page's shape as displayed (poppler applies the page's /Rotate), in points.
    /// `page` counts from 1.
    public func shape(page: Int) throws -> SourceShape {
        try withPage(page) { p in
            var w = 0.0, h = 0.0
            poppler_page_get_size(p, &w, &h)
            return SourceShape(width: w, height: h)
        }
    }

    /// Draws page `page` (from 1) as a white sheet filling `rect` of `frame`; the rest of
    /// the frame is left as it is.
    ///
    /// Rendered the way poppler's own cairo rendering (`pdftocairo`) does it: the page is
    /// drawn onto a transparent ARGB surface and only then composited over white paper.
    /// Drawn straight onto a white frame, the page's transparency would see an opaque
    /// white backdrop that is not part of the page: blend modes then act against white
    /// (Screen, Difference … come out inverted or washed out) and knockout groups and
    /// soft masks knock the paper out to black.
    ///
    /// The transparent surface is the frame's own memory under `rect` (XRGB8888 has
    /// ARGB32's layout), cleared first and made opaque again by the composite, so nothing
    /// is allocated or copied beyond one pass over the rectangle.
    ///
    /// `part`: only that part of the page fills `rect` (the rest of the page is not drawn).
    public func render(page: Int, into frame: Frame, rect: PixelRect, part: PagePart = .whole) throws {
        // What of `rect` lies on the frame (the page is clipped to that, as before).
        let x0 = max(0, rect.x), y0 = max(0, rect.y)
        let x1 = min(frame.width, rect.maxX), y1 = min(frame.height, rect.maxY)
        try withPage(page) { p in
            guard x0 < x1, y0 < y1 else { return }
            var w = 0.0, h = 0.0
            poppler_page_get_size(p, &w, &h)
            let surface = cairo_image_surface_create_for_data(
                (frame.baseAddress + y0 * frame.stride + x0 * 4).assumingMemoryBound(to: UInt8.self),
                CAIRO_FORMAT_ARGB32, Int32(x1 - x0), Int32(y1 - y0), Int32(frame.stride))
            let cr = cairo_create(surface)
            defer {
                cairo_destroy(cr)
                cairo_surface_flush(surface)
                cairo_surface_finish(surface)
                cairo_surface_destroy(surface)
            }
            // Transparent, not white: the page's backdrop is nothing.
            cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR)
            cairo_paint(cr)
            cairo_set_operator(cr, CAIRO_OPERATOR_OVER)

            cairo_save(cr)
            let r = part.region(width: w, height: h)
            cairo_rectangle(cr, Double(rect.x - x0), Double(rect.y - y0), Double(rect.width), Double(rect.height))
            cairo_clip(cr)
            cairo_translate(cr, Double(rect.x - x0), Double(rect.y - y0))
            cairo_scale(cr, Double(rect.width) / max(r.width, 1e-6), Double(rect.height) / max(r.height, 1e-6))
            cairo_translate(cr, -r.x, -r.y)
            // poppler and cairo draw a page without what they could not allocate (an image
            // bigger than the render worker's RLIMIT_AS leaves): that page is not what it
            // says. malloc leaves ENOMEM in errno, and nothing sets errno back on success.
            errno = 0
            poppler_page_render(p, cr)
            let failedAllocation = errno == ENOMEM || cairo_status(cr) == CAIRO_STATUS_NO_MEMORY
            cairo_restore(cr)
            if failedAllocation { throw ContentError.overLimits(page: page, megabytes: 0) }

            // Then the paper behind it, as pdftocairo blends its PNGs onto white.
            cairo_set_operator(cr, CAIRO_OPERATOR_DEST_OVER)
            cairo_set_source_rgb(cr, 1, 1, 1)
            cairo_paint(cr)
        }
    }

    /// The page's label (`/PageLabels`: "iv", "A-3", or the number when the PDF has none),
    /// as poppler reports it; at most 64 bytes of UTF-8 (cut on a character boundary).
    public func label(page: Int) throws -> String {
        try withPage(page) { p in
            guard let c = poppler_page_get_label(p) else { return String(page) }
            defer { g_free(c) }
            let s = String(cString: c)
            var cut = Substring(s)
            while cut.utf8.count > 64 { cut = cut.dropLast() }
            return cut.isEmpty ? String(page) : String(cut)
        }
    }

    /// The text of the page's text annotations (sticky notes), in the PDF's order, each
    /// cut at `maxCharacters`.
    public func textAnnotations(page: Int, maxCharacters: Int = 4096) throws -> [String] {
        try withPage(page) { p in
            guard let list = poppler_page_get_annot_mapping(p) else { return [] }
            defer { poppler_page_free_annot_mapping(list) }
            var texts: [String] = []
            var node: UnsafeMutablePointer<GList>? = list
            while let n = node {
                if let m = n.pointee.data?.assumingMemoryBound(to: PopplerAnnotMapping.self), let annot = m.pointee.annot,
                    poppler_annot_get_annot_type(annot) == POPPLER_ANNOT_TEXT, let c = poppler_annot_get_contents(annot)
                {
                    let text = String(cString: c)
                    g_free(c)
                    if !text.isEmpty { texts.append(String(text.prefix(maxCharacters))) }
                }
                node = n.pointee.next
            }
            return texts
        }
    }

    func withPage<T>(_ page: Int, _ body: (OpaquePointer) throws -> T) throws -> T {
        guard page >= 1, page <= pageCount else {
            throw ContentError.pageOutOfRange(page: page, pageCount: pageCount)
        }
        lock.lock(); defer { lock.unlock() }
        guard let p = poppler_document_get_page(doc, Int32(page - 1)) else {
            throw ContentError.damaged(detail: "page \(page) can't be read")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(p)) }
        return try body(p)
    }
}
