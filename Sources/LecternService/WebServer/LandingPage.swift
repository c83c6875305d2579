/// The landing page (docs/protocol.md §28): what the address on the wall and in its QR code
/// opens, in plain HTTP, when the room's certificate is one browsers warn about (the
/// appliance's own). One sentence saying the browser will warn once for this room, the
/// certificate's fingerprint as the wall shows it, and the way on to https://. Nothing is
/// typed here: no field, no form, no cookie; the code of `screen_code` rides in the URL's
/// fragment, which the browser never sends, and the page's script only carries it on to
/// the https:// address. Pure: the words and the page's bytes, no I/O.
struct LandingPage: Equatable, Sendable {
    /// The room's name (the config's `room`).
    var room: String
    /// The fingerprint's short form, as on the idle screen ("3FA2 9B10 C4D7 E8F1").
    var fingerprint: String
    /// Where Continue goes: the same host and port over https:// (`PlainHTTPAnswer`).
    var https: String

    /// The one sentence (docs/protocol.md §28 quotes it).
    static let sentence = "Your browser will warn you once about this room's own certificate: continue when the code below matches the one at the bottom of the wall."

    /// The answer's headers besides the status line, length and `Connection: close`: no
    /// script or style from anywhere but the page, no form may post, nothing is cached
    /// or sent on as a referrer.
    static let headers: [(String, String)] = [
        ("Content-Type", "text/html; charset=utf-8"),
        ("Cache-Control", "no-store"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Content-Type-Options", "nosniff"),
        (
            "Content-Security-Policy",
            "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src https:; img-src 'none'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'"
        ),
    ]

    var html: String {
        let room = Self.escape(room), fp = Self.escape(fingerprint), to = Self.escape(https)
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light">
            <title>\(room) · Lectern</title>
            <style>
            body{margin:0;font:17px/1.45 system-ui,sans-serif;background:#f3f5fa;color:#16213a}
            main{max-width:30rem;margin:0 auto;padding:1.5rem 1.25rem}
            h1{font-size:1.5rem;margin:.2rem 0 1rem}
            .fp{font:600 1.6rem/1.2 ui-monospace,monospace;letter-spacing:.06em;background:#fff;border:1px solid #c9d1e4;border-radius:.6rem;padding:.7rem;text-align:center;margin:1rem 0}
            a.go{display:block;text-align:center;background:#2456d6;color:#fff;text-decoration:none;font-weight:600;padding:.9rem;border-radius:.6rem;font-size:1.15rem}
            .small{font-size:.9rem;color:#4a5672}
            </style>
            </head>
            <body>
            <main>
            <h1 id="room">\(room)</h1>
            <p id="warning">\(Self.escape(Self.sentence))</p>
            <p class="fp" id="fingerprint" aria-label="Certificate fingerprint">\(fp)</p>
            <a class="go" id="continue" href="\(to)">Continue to the room</a>
            <p class="small">On the warning: Advanced, then Proceed. Nothing is typed on this page; the passcode only ever on the encrypted one.</p>
            </main>
            <script>
            (function () {
              var a = document.getElementById('continue');
              if (/^#code=[0-9]{6}$/.test(location.hash)) a.href = a.href.split('#')[0] + location.hash;
              // This browser knows the certificate already (a second scan): straight on.
              fetch(a.href.split('#')[0] + 'lectern.css', { mode: 'no-cors', cache: 'no-store', credentials: 'omit' })
                .then(function () { location.replace(a.href); }, function () { document.body.dataset.probe = 'unknown'; });
            })();
            </script>
            </body>
            </html>

            """
    }

    /// Text fit for HTML content and a double-quoted attribute.
    static func escape(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
