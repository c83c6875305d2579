import Foundation
import LecternModel
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// A reload that changes what the idle screen shows besides the room's name (the Wi-Fi,
/// the branding) draws it again at once, not at the next minute's clock.
final class ReloadIdleScreenTests: XCTestCase {
    func testANewWiFiNetworkIsOnTheWallRightAfterTheReload() throws {
        let h = try ServiceHarness(floor: .open)
        let path = h.dir + "/lectern.toml"
        try """
        room = "Test Room"
        passcode = "\(ServiceHarness.presenterPass)"
        moderator_passcode = "\(ServiceHarness.moderatorPass)"
        floor = "open"
        data_dir = "\(h.dir)/data"
        wifi_ssid = "Room 4.12 Guests"
        wifi_password = "a-guest-passphrase"
        """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        XCTAssertNil(h.service.idleScreen(port: h.port).wifi)
        XCTAssertEqual(h.service.reload(configPath: path), [])
        XCTAssertEqual(h.service.idleScreen(port: h.port).wifi?.ssid, "Room 4.12 Guests")
        var diff = -1
        try? eventually("the output shows the idle screen with the Wi-Fi", timeout: 10, interval: 0.1) {
            let expected = Frame(width: h.service.onScreen.width, height: h.service.onScreen.height, color: .black)
            h.service.idleScreen(port: h.port).draw(into: expected)
            diff = PixelCompare.differingPixels(h.service.onScreen, expected)
            return diff == 0
        }
        XCTAssertEqual(diff, 0, "the output differs from the idle screen with the Wi-Fi in \(diff) pixels")
    }
}
