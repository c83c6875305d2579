import Foundation
import LecternModel
import LecternSystem
import LecternProtocol
@testable import LecternService
import LecternTestSupport
import XCTest

/// A person's way from scanning the wall's QR code to their first slide on the wall,
/// walked in a real Chromium on a phone's viewport, counting what the person does: each
/// tap (a button, a field that needs focus, the browser's certificate warning, the file
/// chooser) and each typed character, and timing it (the machine's seconds from opening
/// the address to the slide on the output, and a person's, modelled below).
final class FirstSlideWalk {
    let session: WebSession
    private(set) var taps = 0
    private(set) var typed = 0
    private(set) var steps: [String] = []
    let started = MonotonicClock.now()

    /// A person's time per tap (find it, reach it, tap) and per character typed on a
    /// phone's keyboard: the model behind the "person's seconds" figure (the machine's own
    /// time is measured; a person reading the page is not counted).
    static let secondsPerTap = 1.5, secondsPerCharacter = 0.35

    init(_ session: WebSession) { self.session = session }

    /// A tap on what `css` finds (waits for it to be shown).
    func tap(_ css: String, _ what: String, timeout: Double = 20) throws {
        try session.click(css, timeout: timeout)
        taps += 1
        steps.append("tap " + what)
    }

    /// Types `text` into the field: a tap first when it doesn't have the focus already.
    func type(_ css: String, _ text: String, _ what: String) throws {
        let e = try session.wait(for: css)
        let focused = try session.execute("return document.activeElement === arguments[0]", [session.elementArg(e)]) as? Bool == true
        if !focused {
            taps += 1
            steps.append("tap " + what)
        }
        try session.type(e, text)
        typed += text.count
        steps.append("type \(text.count) characters (\(what))")
    }

    /// Chooses a file: a tap opens the phone's chooser, a second picks the file.
    func pick(_ path: String, input css: String, _ what: String) throws {
        let e = try XCTUnwrap(try session.find(css), "no \(css)")
        try session.type(e, path)
        taps += 2
        steps.append("tap " + what + ", tap the file in the chooser")
    }

    /// From the address opened to the web remote's page: the landing page (§28) when it
    /// stays (a browser that knows the certificate goes on by itself), then the browser's
    /// "Your connection is not private" page for a certificate it doesn't know ("Advanced",
    /// then "Proceed to … (unsafe)").
    func reachThePage() throws {
        var landed = false, warned = false
        while true {
            var seen = ""
            try session.poll("the landing page, the certificate warning or the web remote", timeout: 30) {
                seen =
                    try session.execute(
                        """
                        if (document.readyState !== 'complete') return '';
                        if (document.getElementById('details-button')) return 'warning';
                        if (document.body && document.body.dataset.probe === 'unknown' && document.getElementById('continue')) return 'landing';
                        const p = document.body && document.body.dataset.phase;
                        return location.protocol === 'https:' && ['login', 'in', 'joining', 'reconnecting'].includes(p) ? 'page' : '';
                        """) as? String ?? ""
                return !seen.isEmpty && !(seen == "landing" && landed) && !(seen == "warning" && warned)
            }
            switch seen {
            case "landing":
                landed = true
                try tap("#continue", "Continue (the landing page)")
            case "warning":
                warned = true
                try tap("#details-button", "Advanced (the certificate warning)")
                try tap("#proceed-link", "Proceed (the certificate warning)")
            default: return
            }
        }
    }

    var machineSeconds: Double { MonotonicClock.now() - started }
    var personSeconds: Double { Double(taps) * Self.secondsPerTap + Double(typed) * Self.secondsPerCharacter }

    func report(_ title: String) -> String {
        let s = String(
            format: "%@: %d taps, %d characters typed; %.1f s on this machine, about %.0f s for a person (%.1f s a tap, %.2f s a character)",
            title, taps, typed, machineSeconds, personSeconds, Self.secondsPerTap, Self.secondsPerCharacter)
        return s + "\n  " + steps.joined(separator: "\n  ")
    }
}
