import LecternModel
import XCTest

/// The default connection budget (docs/config.md, protocol.md §2.4 and §24.7) holds a full
/// room: 254 floor devices and 250 viewers, each from its own address, all get in and
/// register while a flood of idle connections holds every unregistered place — and the
/// presenters that come after a full audience still do.
final class AudienceConnectionBudgetTests: XCTestCase {
    func testAFullAudienceAndAFullFloorFitBesideAFlood() {
        let config = Config()
        var gate = ConnectionGate(
            limits: .init(total: config.maxConnections, perAddress: 10_000, reservedForDevices: config.connectionsReservedForDevices))
        // The flood: every unregistered place, from one address.
        for _ in 0..<gate.limits.unregistered {
            guard case .admit = gate.arrive(address: "10.66.0.1") else { return XCTFail("the flood fills the unregistered places") }
        }
        func join(_ address: String) -> Bool {
            guard case .admit(let id, _) = gate.arrive(address: address) else { return false }
            gate.registered(id)
            return true
        }
        let viewers = (0..<250).filter { join("10.1.\($0 / 200).\($0 % 200 + 1)") }.count
        XCTAssertEqual(viewers, 250, "a full audience")
        let devices = (0..<254).filter { join("10.2.\($0 / 200).\($0 % 200 + 1)") }.count
        XCTAssertEqual(devices, 254, "every presenter and the moderator after it")
        XCTAssertLessThanOrEqual(gate.open, config.maxConnections)
        XCTAssertEqual(gate.registered, 504)

        // With the old reserve (256), the audience would have taken the presenters' places.
        var old = ConnectionGate(limits: .init(total: 1024, perAddress: 10_000, reservedForDevices: 256))
        for _ in 0..<old.limits.unregistered { _ = old.arrive(address: "10.66.0.1") }
        var admitted = 0
        for i in 0..<504 {
            if case .admit(let id, _) = old.arrive(address: "10.3.\(i / 200).\(i % 200 + 1)") { old.registered(id); admitted += 1 }
        }
        XCTAssertLessThan(admitted, 504, "the budget this reserve fixes")
    }
}
