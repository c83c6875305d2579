import Foundation
import Synchronization
import LecternModel

/// Decks whose pages carry `/Trans` entries (written by hand with RawPDF: cairo can't), and
/// a clock a test sets by hand for the stage's transitions.
extension Fixtures {
    /// A 16:9 deck (640×360 points), page n filled with `colors[n-1]`; `transitions[n-1]` is
    /// the inside of page n's `/Trans` dictionary (`"/S /Fade /D 1"`), nil for none.
    public static func transitionDeck(_ colors: [RGB], transitions: [String?], in dir: String, name: String = "trans.pdf") throws -> String {
        precondition(colors.count == transitions.count)
        var pdf = RawPDF()
        for (c, t) in zip(colors, transitions) {
            let fill = "\(RawPDF.numbers([Double(c.r) / 255, Double(c.g) / 255, Double(c.b) / 255])) rg 0 0 640 360 re f"
            let content = pdf.addStream("", fill)
            let trans = t.map { " /Trans << /Type /Trans \($0) >>" } ?? ""
            _ = pdf.addPage("/MediaBox [0 0 640 360] /Contents \(content) 0 R\(trans)")
        }
        let path = dir + "/" + name
        try pdf.write(to: path)
        return path
    }
}

/// A clock that moves only when told (monotonic seconds): what a stage's transitions run on
/// in tests.
public final class ManualClock: Sendable {
    private let value: Mutex<Double>
    public init(_ start: Double = 0) { value = Mutex(start) }
    public var now: Double {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
    public var read: @Sendable () -> Double { { [self] in now } }
}
