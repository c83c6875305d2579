import Foundation
import LecternModel
import LecternProtocol
import LecternTestSupport
import XCTest

/// "A wrong possession proof makes the service read the whole stored file into memory (12
/// requests against a 64 MiB file: +256 MiB)": the proof is computed from the file a piece
/// at a time.
final class PossessionProofTests: XCTestCase {
    func testWrongProofsAgainstALargeFileCostLittleMemory() throws {
        let h = try ServiceHarness(floor: .open) { $0.maxUploadMB = 128 }
        // A 64 MiB PDF (one page, and a large unused stream), uploaded by its owner.
        var pdf = RawPDF()
        let filler = pdf.reserve()
        pdf.defineStream(filler, "", [UInt8](repeating: 0x41, count: 64 << 20))
        _ = pdf.addPage("/MediaBox [0 0 100 100]")
        let big = h.dir + "/big.pdf"
        try pdf.write(to: big)
        let id = try h.presenter("owner").upload(path: big).content
        let device = try RawDevice(port: h.port, name: "prover", key: try Hostile.presenterKey(h), tls: h.fingerprint)
        let before = Footprint.residentBytes()
        var block: [UInt8] = []
        for i in 0..<12 {
            let begin = UploadBegin(content: id, size: 64 << 20, kind: nil, proof: [UInt8](repeating: UInt8(i), count: 32), name: "big.pdf")
            block += Message.uploadBegin(begin).encode(tag: UInt16(i), deviceID: device.id)
        }
        device.socket.send(block)
        var answers = 0
        var decoder = FrameDecoder()
        try eventually("12 answers", timeout: 60) {
            if let bytes = device.socket.receive(timeout: 0.2) { decoder.feed(bytes) }
            while let f = try decoder.next() {
                if [Command.uploadReady.rawValue, Command.error.rawValue].contains(f.header.command) { answers += 1 }
            }
            return answers >= 12
        }
        XCTAssertLessThan(Footprint.residentBytes() - before, 48 << 20, "twelve proofs over 64 MiB (before: +256 MiB)")
    }
}
