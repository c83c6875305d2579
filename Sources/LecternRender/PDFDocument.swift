import CPangoCairo
import CPoppler
import Foundation
import LecternCore

/// A PDF opened with poppler-glib. Pages are rendered through cairo straight into frames.
///
/// poppler is not safe to use from two threads on one document at once, so every call
/// into it holds the document's lock.
public final class PDFDocument: @unchecked Sendable {
    private let doc: OpaquePointer
    private let lock = NSLock()
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
        // A PDF starts with %PDF- (readers accept it within the first KiB).
        guard head.range(of: Data("%PDF-".utf8)) != nil else { throw ContentError.notAPDF }

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
            throw ContentError.damaged(detail: message)
        }
        doc = d
        let n = Int(poppler_document_get_n_pages(d))
        guard n > 0 else { g_object_unref(UnsafeMutableRawPointer(d)); throw ContentError.noPages }
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
    public func render(page: Int, into frame: Frame, rect: PixelRect) throws {
        try withPage(page) { p in
            var w = 0.0, h = 0.0
            poppler_page_get_size(p, &w, &h)
            let c = CairoFrame(frame)
            defer { c.finish() }
            c.fill(rect, .white)
            cairo_rectangle(c.cr, Double(rect.x), Double(rect.y), Double(rect.width), Double(rect.height))
            cairo_clip(c.cr)
            cairo_translate(c.cr, Double(rect.x), Double(rect.y))
            cairo_scale(c.cr, Double(rect.width) / max(w, 1e-6), Double(rect.height) / max(h, 1e-6))
            poppler_page_render(p, c.cr)
        }
    }

    private func withPage<T>(_ page: Int, _ body: (OpaquePointer) throws -> T) throws -> T {
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
