import Foundation
import LecternModel
import LecternProtocol

extension LecternConnection {
    /// The meeting record as one PDF (docs/protocol.md §26), and its page count (cover
    /// included). `progress(done, total)` as the appliance draws the pages. Each reply may
    /// take up to `stepTimeout` seconds (a page of a heavy deck is slow to draw).
    public func meetingRecord(stepTimeout: Double = 120, progress: ((Int, Int) -> Void)? = nil) throws -> (pdf: Data, pages: Int) {
        let tag = send(.recordRequest)
        var pdf = Data()
        while true {
            switch try reply(tag: tag, what: "meeting record", timeout: stepTimeout) {
            case .recordProgress(let p): progress?(Int(p.done), Int(p.total))
            case .recordData(let piece):
                guard Int(piece.offset) == pdf.count else { throw ClientError.unexpected("meeting record piece out of order") }
                pdf.append(contentsOf: piece.data)
                if pdf.count >= Int(piece.totalSize) { return (pdf, Int(piece.pages)) }
            default: throw ClientError.unexpected("meeting record")
            }
        }
    }
}
