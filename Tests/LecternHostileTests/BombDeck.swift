import Foundation
import LecternClient
import LecternProtocol
import LecternTestSupport
import XCTest

/// What the render-bomb tests share: a deck of plain pages with bombs among them, and the
/// server's error for a request that should fail.
enum BombDeck {
    /// Writes a deck of `pages` plain 600×450 pages (a coloured bar each) where the pages in
    /// `bombs` instead run `draw` with the XObjects named in `xobjects` (already in `pdf`).
    static func write(_ pdf: inout RawPDF, pages: Int, bombs: Set<Int>, draw: String, xobjects: String, to path: String) throws -> String {
        for p in 1...pages {
            if bombs.contains(p) {
                let content = pdf.addStream("", draw)
                _ = pdf.addPage("/MediaBox [0 0 600 450] /Contents \(content) 0 R /Resources << /XObject << \(xobjects) >> >>")
            } else {
                let gray = Double(p) / Double(pages + 1)
                let content = pdf.addStream("", "\(gray) 0.3 0.2 rg 100 100 \(40 * p) 200 re f")
                _ = pdf.addPage("/MediaBox [0 0 600 450] /Contents \(content) 0 R")
            }
        }
        try pdf.write(to: path)
        return path
    }
}

extension XCTestCase {
    /// The server's error for `body`, which should fail with one (anything else fails the test).
    func serverError(_ body: () throws -> Void) -> LecternError? {
        do { try body() } catch {
            if let e = (error as? LecternConnection.ClientError)?.lecternError { return e }
            XCTFail("not a server error: \(error)")
        }
        return nil
    }
}
