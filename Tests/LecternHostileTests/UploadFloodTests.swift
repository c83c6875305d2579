import Foundation
import LecternModel
import LecternProtocol
import LecternTestSupport
import XCTest

/// "~1000 upload-begins on one connection exhausted descriptors and left ~1000 empty part
/// files": a connection has a few uploads open at once; the rest are refused, and what
/// the connection leaves behind empty is removed.
final class UploadFloodTests: XCTestCase {
    func testAThousandUploadBeginsOpenAFewFilesAndLeaveNone() throws {
        let h = try ServiceHarness()
        let device = try RawDevice(port: h.port, name: "begins", key: try Hostile.presenterKey(h), tls: h.fingerprint)
        let fdsBefore = Footprint.openDescriptors()
        var block: [UInt8] = []
        for i in 0..<1000 {
            var id = [UInt8](repeating: 0, count: 32)
            id[0] = UInt8(i & 0xFF)
            id[1] = UInt8(i >> 8)
            let b = UploadBegin(content: ContentID(bytes: id)!, size: 1000, kind: .pdf, proof: nil, name: "f\(i).pdf")
            block += Message.uploadBegin(b).encode(tag: UInt16(i), deviceID: device.id)
        }
        device.socket.send(block)
        let uploads = h.dir + "/data/uploads"
        // Every begin is answered: a few ready, the rest busy.
        var ready = 0, busy = 0
        var decoder = FrameDecoder()
        try eventually("1000 answers", timeout: 20) {
            if let bytes = device.socket.receive(timeout: 0.2) { decoder.feed(bytes) }
            while let f = try decoder.next() {
                switch try Message.decode(f, sentBy: .server) {
                case .uploadReady: ready += 1
                case .error(let e) where e.code == .busy: busy += 1
                default: break
                }
            }
            return ready + busy == 1000
        }
        XCTAssertEqual(ready, ProtocolLimits.uploadsPerConnection)
        XCTAssertLessThanOrEqual((try FileManager.default.contentsOfDirectory(atPath: uploads)).count, ProtocolLimits.uploadsPerConnection)
        XCTAssertLessThan(Footprint.openDescriptors() - fdsBefore, 20)
        device.close()
        try eventually("the empty part files removed", timeout: 10) {
            try FileManager.default.contentsOfDirectory(atPath: uploads).isEmpty
        }
    }
}
