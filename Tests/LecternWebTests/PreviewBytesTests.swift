import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// What the live picture costs a phone on the room's Wi-Fi: a photo slide is a JPEG at no
/// more than twice the picture's CSS width, a text slide stays a sharp PNG, and a picture
/// scrolled out of view is not fetched at all (until it is back in view).
final class PreviewBytesTests: XCTestCase {
    /// A one-page PDF whose page is a photograph-like image: smooth gradients with grain
    /// (what a JPEG is for and a PNG is bad at).
    static func photoDeck(in dir: String) throws -> String {
        let w = 800, h = 450
        var pixels = [UInt8](repeating: 0, count: w * h * 3)
        var seed: UInt32 = 12345
        for y in 0..<h {
            for x in 0..<w {
                seed = seed &* 1_103_515_245 &+ 12345
                let grain = Int((seed >> 16) & 31) - 16
                let fx = Double(x) / Double(w), fy = Double(y) / Double(h)
                let r = 120 + 100 * sin(fx * 6.3) * cos(fy * 3.1), g = 110 + 90 * cos(fx * 4.1 + fy * 2.0), b = 140 + 80 * sin(fy * 5.7 - fx)
                for (i, v) in [r, g, b].enumerated() { pixels[(y * w + x) * 3 + i] = UInt8(max(0, min(255, Int(v) + grain))) }
            }
        }
        var pdf = RawPDF()
        let image = pdf.reserve()
        pdf.defineStream(image, "/Type /XObject /Subtype /Image /Width \(w) /Height \(h) /ColorSpace /DeviceRGB /BitsPerComponent 8", pixels)
        let content = pdf.addStream("", "q 1280 0 0 720 0 0 cm /Im0 Do Q")
        _ = pdf.addPage("/MediaBox [0 0 1280 720] /Contents \(content) 0 R /Resources << /XObject << /Im0 \(image) 0 R >> >>")
        let path = dir + "/photo.pdf"
        try pdf.write(to: path)
        return path
    }

    func testAPhotoSlideOnAPhoneIsASmallJPEG() throws {
        let h = try ServiceHarness.web(floor: .open)
        let photo = try Self.photoDeck(in: h.dir)
        let text = try Fixtures.numberedDeck(count: 2, in: h.dir, name: "text.pdf")
        guard let driver = h.driver else { return XCTFail("no browsers") }
        // A phone at 3 device pixels per CSS pixel.
        let b = try driver.session(width: 390, height: 844)
        try b.call(
            "POST", "/chromium/send_command", ["cmd": "Emulation.setDeviceMetricsOverride", "params": ["width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": false]])
        try b.open(h.url)
        _ = try b.wait(for: "#login-form")
        try h.joinAndWait(b, name: "Ana's phone")
        XCTAssertEqual(try b.execute("return window.devicePixelRatio") as? Double ?? Double(try b.execute("return window.devicePixelRatio") as? Int ?? 0), 3)
        try b.click("#floor-request")
        try b.poll("the floor") { try b.text("#floor-status") == "You have the floor." }
        try b.type(try XCTUnwrap(b.find("#file-input")), photo)
        try b.click("#file-list button[data-action=present]", timeout: 30)
        try eventually("the photo on the wall", timeout: 20) { try h.snapshot().screen.content?.name == "photo.pdf" }

        func settledPreview() throws -> (type: String, width: Int, cssWidth: Double, bytes: Int) {
            var v: [Any] = []
            try b.poll("the preview of the slide") {
                v =
                    try b.execute(
                        """
                        const a = window.Lectern.app, i = document.getElementById('preview-img');
                        if (a.previewBusy || a.previewURL !== i.src || !i.complete) return null;
                        return [a.previewType, i.naturalWidth, document.getElementById('preview').clientWidth, a.previewBytes, a.previewFetches];
                        """) as? [Any] ?? []
                return v.count == 5
            }
            return (v[0] as? String ?? "", v[1] as? Int ?? 0, Double(v[2] as? Int ?? 0), v[3] as? Int ?? 0)
        }
        // Wait for the screen's picture to be the photo (the first fetch was the idle screen).
        var shot = try settledPreview()
        try b.poll("a JPEG of the photo") {
            shot = try settledPreview()
            return shot.type == "image/jpeg"
        }
        let before = try b.execute("return window.Lectern.app.previewBytes") as? Int ?? 0
        // One more fetch of the same slide, to measure it alone.
        try b.execute("window.Lectern.app.previewBytes = 0; window.Lectern.app.previewFetches = 0; window.Lectern.app.state.revision = 0")
        try b.execute("return import('/app/preview.js').then((m) => m.refreshPreview())")
        try b.poll("the fetch measured") { try b.execute("return window.Lectern.app.previewFetches") as? Int == 1 }
        let photoBytes = try b.execute("return window.Lectern.app.previewBytes") as? Int ?? 0
        XCTAssertLessThanOrEqual(Double(shot.width), 2 * shot.cssWidth + 1, "at most 2 device pixels per CSS pixel")
        // The PNG the page got before (a 3× phone, full device width) for the same frame.
        let full = h.service.stage.screenshot()
        let size = Fit.previewSize(width: full.width, height: full.height, maxWidth: Int(shot.cssWidth * 3), maxHeight: 0)
        let oldPNG = PNG.encode(full.scaled(width: size.width, height: size.height)).count
        XCTAssertLessThan(photoBytes, 120_000, "a photo slide's preview on a phone, in bytes")
        XCTAssertLessThan(photoBytes * 4, oldPNG, "the JPEG is a fraction of the 3× PNG (\(oldPNG) bytes)")
        print(
            "preview bytes, photo slide on a 390-px 3× phone: \(photoBytes) bytes JPEG at \(shot.width) px (was a \(oldPNG)-byte PNG at \(size.width) px); first fetches \(before) bytes"
        )

        // A text slide stays PNG (smaller and sharp).
        try b.type(try XCTUnwrap(b.find("#file-input")), text)
        try b.click("#file-list button[data-action=present][data-content]:not([disabled])", timeout: 30)
        try b.poll("a PNG of the text slide") {
            try h.snapshot().screen.content?.name == "text.pdf" && settledPreview().type == "image/png"
        }

        // Scrolled out of view: page turns fetch nothing; back in view, one fetch.
        try b.execute("window.Lectern.app.previewFetches = 0; document.getElementById('preview').style.marginTop = '0'; window.scrollTo(0, document.body.scrollHeight)")
        try b.execute("document.querySelector('.files').scrollIntoView()")
        try b.poll("the picture out of view") { try b.execute("return window.Lectern.app.previewInView") as? Bool == false }
        try b.execute("window.Lectern.app.previewFetches = 0")
        try b.execute("document.getElementById('next').click()")
        try eventually("page 2 on the wall", timeout: 20) { try h.snapshot().screen.page == 2 }
        try b.poll("the state in the page") { try b.text("#page-label") == "2 / 2" }
        XCTAssertEqual(try b.execute("return window.Lectern.app.previewFetches") as? Int, 0, "fetched while out of view")
        try b.execute("document.getElementById('preview').scrollIntoView()")
        try b.poll("fetched once back in view") { try b.execute("return window.Lectern.app.previewFetches") as? Int == 1 }
    }
}
