import ArgumentParser
import LecternModel
import LecternRender

/// `lectern demo-deck`: writes the demo deck that `make run` preloads (board/demo/).
struct DemoDeckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo-deck", abstract: "Write Lectern's demo slides as a PDF.", shouldDisplay: false)

    @Option(name: .shortAndLong, help: "Where to write the PDF.") var output: String

    func run() throws {
        let navy = RGB(20, 40, 90), accent = RGB(230, 120, 30)
        func slide(_ title: String, _ lines: [String]) -> PDFSketch.Page {
            var texts: [PDFSketch.Text] = [.init(title, x: 0.06, y: 0.06, size: 0.08, color: .white, bold: true)]
            for (i, l) in lines.enumerated() { texts.append(.init(l, x: 0.08, y: 0.30 + 0.12 * Double(i), size: 0.055, color: navy)) }
            return PDFSketch.Page(
                width: 720, height: 540,
                boxes: [
                    .init(x: 0, y: 0, width: 1, height: 0.2, color: navy),
                    .init(x: 0, y: 0.2, width: 1, height: 0.015, color: accent),
                ], texts: texts)
        }
        try PDFSketch.write(
            [
                slide("Welcome to Lectern", ["Put your slides on the wall", "from the device you brought.", "No app to install."]),
                slide("How to present", ["1. Join the room's Wi-Fi", "2. Connect with the room passcode", "3. Upload your PDF and take the floor"]),
                slide("Clips too", ["H.264 clips play paced to the display", "pause, seek, and back to your slide"]),
                PDFSketch.Page(
                    width: 960, height: 540, boxes: [.init(x: 0, y: 0, width: 1, height: 1, color: navy)],
                    texts: [.init("16:9 slides fill the screen", x: 0.05, y: 0.42, size: 0.1, color: .white, bold: true)]),
                PDFSketch.Page(
                    width: 595, height: 842,
                    texts: [
                        .init("A portrait page", x: 0.08, y: 0.1, size: 0.05, color: navy, bold: true),
                        .init("is pillarboxed, never cropped.", x: 0.08, y: 0.2, size: 0.035, color: navy),
                    ]),
            ], to: output)
    }
}
