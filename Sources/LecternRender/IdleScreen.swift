import CPangoCairo
import CPoppler
import LecternModel

/// The picture on the wall when nothing is presented: the room's name and how to connect,
/// large enough to read from the back of the room.
public struct IdleScreen: Equatable, Sendable {
    public var room: String
    /// Addresses a device on the room's network can reach the appliance at.
    public var addresses: [String]
    public var port: Int
    /// The address a phone opens (the web remote); shown as a line of its own when set.
    public var url: String?
    public var background: RGB
    /// The code on the wall (`screen_code = true`): drawn large under the room's name.
    public var code: String?
    /// The room's Wi-Fi: "Join the Wi-Fi …" and a Wi-Fi QR code above the join QR code.
    public var wifi: WiFiJoin?
    /// The time of day ("14:05"), drawn at the top; the service redraws it each minute.
    public var timeOfDay: String?
    /// Branding: the code (and the clock) in this colour; nil: the text colour.
    public var accent: RGB?
    /// Branding: a PNG or SVG drawn at the top left (IdleLogo).
    public var logoPath: String?
    /// Branding: a PNG or SVG covering the whole idle screen, under everything (its edges
    /// cut to the output's aspect); the background colour shows where it can't be drawn.
    public var backgroundImagePath: String?
    /// The TLS certificate's fingerprint, short form ("3FA2 9B10 C4D7 E8F1"): drawn small
    /// at the bottom, for a person to compare with what `lectern` or the browser shows.
    public var fingerprint: String?

    public init(room: String, addresses: [String], port: Int, url: String? = nil, background: RGB = .black) {
        self.room = room; self.addresses = addresses; self.port = port
        self.url = url; self.background = background
    }

    /// The colour text is drawn in: light on dark backgrounds, dark on light ones.
    public var textColor: RGB {
        let luma = 0.299 * Double(background.r) + 0.587 * Double(background.g) + 0.114 * Double(background.b)
        return luma < 128 ? RGB(240, 240, 240) : RGB(20, 20, 20)
    }

    /// The font the deps script installs (fonts-dejavu-core).
    public static let fontFamily = "DejaVu Sans"

    public var connectLine: String {
        let where_ = addresses.isEmpty ? "no network yet" : addresses.joined(separator: "  ·  ")
        return "Connect to \(where_)  —  port \(port)"
    }

    /// Where the QR code goes (right side, vertically centred), when there is a URL.
    func qrRect(in area: PixelRect) -> PixelRect? {
        guard url != nil else { return nil }
        if wifi != nil {
            // Two codes stacked: the Wi-Fi's above, the join address's below.
            let side = area.height * 38 / 100
            return PixelRect(x: area.maxX - side - area.width / 24, y: area.maxY - side - area.height * 8 / 100, width: side, height: side)
        }
        let side = area.height * 2 / 5
        return PixelRect(x: area.maxX - side - area.width / 24, y: area.y + (area.height - side) / 2, width: side, height: side)
    }

    /// Where the Wi-Fi QR code goes (above the join code), when the Wi-Fi is configured.
    func wifiRect(in area: PixelRect) -> PixelRect? {
        guard wifi != nil else { return nil }
        let side = area.height * 38 / 100
        return PixelRect(x: area.maxX - side - area.width / 24, y: area.y + area.height * 8 / 100, width: side, height: side)
    }

    /// Draws the whole idle picture into `frame`, inside the safe area: the room name and how
    /// to connect, and a QR code of `url` (black on white, as phone scanners expect).
    public func draw(into frame: Frame, overscanPercent: Double = 0) {
        frame.fill(background)
        if let backgroundImagePath {
            let c = CairoFrame(frame)
            IdleLogo.draw(c.cr, path: backgroundImagePath, in: PixelRect(x: 0, y: 0, width: frame.width, height: frame.height), cover: true)
            c.finish()
        }
        var area = Fit.safeArea(width: frame.width, height: frame.height, overscanPercent: overscanPercent)
        if let wifi, let q = wifiRect(in: area), let code = QRCode(wifi.payload) {
            code.draw(into: frame, at: q, dark: .black, light: .white)
        }
        if let url, let q = qrRect(in: area), let code = QRCode(url) {
            code.draw(into: frame, at: q, dark: .black, light: .white)
            area.width = q.x - area.x - area.width / 48   // the text keeps to the left of the code
        }
        // A little inside the safe area: a glyph's ink may reach past its box ("J", "“").
        let pad = area.height / 60
        area.x += pad
        area.width -= 2 * pad
        let c = CairoFrame(frame)
        defer { c.finish() }
        c.setColor(textColor)
        let h = Double(area.height)
        if let logoPath {
            IdleLogo.draw(c.cr, path: logoPath, in: PixelRect(x: area.x, y: area.y + area.height / 25, width: area.width / 3, height: area.height * 12 / 100))
        }
        if let timeOfDay {
            if let accent { c.setColor(accent) }
            Self.text(c.cr, timeOfDay, bold: false, size: h / 16, x: Double(area.x), y: Double(area.y) + h * 0.04, width: Double(area.width))
            c.setColor(textColor)
        }
        var y = Double(area.y) + h * ((url == nil ? 0.30 : 0.22) - (wifi == nil ? 0 : 0.04))
        for line in lines(width: Double(area.width), height: h) {
            y += h * line.spaceBefore
            if line.accent, let accent { c.setColor(accent) }
            y += Self.text(c.cr, line.text, bold: line.bold, size: line.size, x: Double(area.x), y: y, width: Double(area.width))
            c.setColor(textColor)
        }
        _ = Self.text(
            c.cr, "Lectern · bring your slides, documents, photos and clips, the room passcode, and present",
            bold: false, size: h / 40, x: Double(area.x), y: Double(area.maxY) - h * (fingerprint == nil ? 0.08 : 0.10),
            width: Double(area.width))
        if let fingerprint {
            _ = Self.text(
                c.cr, Self.fingerprintLine(fingerprint), bold: false, size: h / 50, x: Double(area.x), y: Double(area.maxY) - h * 0.055,
                width: Double(area.width))
        }
    }

    /// The line at the bottom with the certificate's fingerprint.
    public static func fingerprintLine(_ short: String) -> String { "Certificate SHA-256  " + short }

    /// One line of the idle screen's text: its size in pixels (of an area `height` high).
    public struct Line: Equatable, Sendable {
        public var text: String
        public var size: Double
        public var bold: Bool
        /// Space above it, as a fraction of the area's height.
        public var spaceBefore: Double
        /// Drawn in the accent colour (the code on the wall), when there is one.
        public var accent = false
    }

    /// What a person types, as short as a browser takes it: "192.0.2.7:8080" for
    /// "http://192.0.2.7:8080/".
    public var typedURL: String? {
        guard var u = url?.split(separator: "#", maxSplits: 1).first.map(String.init) else { return nil }   // the code has its own line
        if u.hasPrefix("http://") { u.removeFirst("http://".count) }
        // Typed without a scheme, a browser tries http:// first and is sent on to https://.
        if u.hasPrefix("https://") { u.removeFirst("https://".count) }
        if u.hasSuffix("/") { u.removeLast() }
        return u
    }

    /// The lines, top to bottom. With the web remote on, the biggest is the address a
    /// person types in a phone's browser (sized to fit the width); the room's name is above
    /// it, the protocol's addresses and port (for the CLI and apps) small below.
    public func lines(width: Double, height h: Double) -> [Line] {
        let name = room.isEmpty ? "Lectern" : room
        // The Wi-Fi to join first (its QR code is the upper one), and the code on the wall last.
        let wifiLine = wifi.map { [Line(text: "Join the Wi-Fi \u{201C}\($0.ssid)\u{201D}", size: h / 26, bold: false, spaceBefore: 0.04)] } ?? []
        let codeLine =
            code.map { c -> [Line] in
                let spaced = c.count == 6 ? String(c.prefix(3)) + " " + String(c.suffix(3)) : c
                return [Line(text: "Code  " + spaced, size: h / 12, bold: true, spaceBefore: 0.04, accent: true)]
            } ?? []
        guard let typed = typedURL else {
            return [Line(text: name, size: h / 9, bold: true, spaceBefore: 0)] + wifiLine + [
                Line(text: connectLine, size: h / 22, bold: false, spaceBefore: 0.06)
            ] + codeLine
        }
        // DejaVu Sans Bold: about 0.64 em a character (digits, dots, colon).
        let fit = width / (0.64 * Double(max(1, typed.count)))
        let urlSize = min(h / 8, fit)
        return [Line(text: name, size: min(h / 13, urlSize * 0.8), bold: true, spaceBefore: 0)] + wifiLine + [
            Line(text: "To present, open in a browser:", size: h / 26, bold: false, spaceBefore: wifi == nil ? 0.07 : 0.04),
            Line(text: typed, size: urlSize, bold: true, spaceBefore: 0.01),
        ] + codeLine + [
            Line(text: connectLine, size: h / 36, bold: false, spaceBefore: code == nil ? 0.06 : 0.04)
        ]
    }

    /// Lays out one centred, ellipsised line; returns its height in pixels.
    @discardableResult
    static func text(
        _ cr: OpaquePointer, _ s: String, bold: Bool, size: Double,
        x: Double, y: Double, width: Double
    ) -> Double {
        guard let layout = pango_cairo_create_layout(cr) else { return 0 }
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        let desc = pango_font_description_from_string(fontFamily + (bold ? " Bold" : ""))
        defer { pango_font_description_free(desc) }
        pango_font_description_set_absolute_size(desc, size * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, desc)
        pango_layout_set_text(layout, s, -1)
        pango_layout_set_width(layout, Int32(width * Double(PANGO_SCALE)))
        pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
        pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER)
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, &logical)
        cairo_move_to(cr, x, y)
        pango_cairo_show_layout(cr, layout)
        return Double(logical.height)
    }
}
