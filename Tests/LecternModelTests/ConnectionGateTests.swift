import LecternModel
import XCTest

final class ConnectionGateTests: XCTestCase {
    func admitted(_ d: ConnectionGate.Decision) -> ConnectionGate.ID? {
        if case .admit(let id, _) = d { return id }
        return nil
    }

    func testPerAddressCapRefusesTheNextFromThatAddressOnly() {
        var g = ConnectionGate(limits: .init(total: 100, perAddress: 3, reservedForDevices: 10, answering: 2))
        for _ in 0..<3 { XCTAssertNotNil(admitted(g.arrive(address: "10.0.0.9"))) }
        guard case .refuse(.address, let answer?) = g.arrive(address: "10.0.0.9") else { return XCTFail("not refused") }
        XCTAssertNotNil(admitted(g.arrive(address: "10.0.0.10")))
        XCTAssertEqual(g.open, 4)
        XCTAssertEqual(g.answering, 1)
        g.closed(answer)
        XCTAssertEqual(g.answering, 0)
        XCTAssertEqual(g.open, 4)
    }

    func testClosingFreesThePlace() {
        var g = ConnectionGate(limits: .init(total: 100, perAddress: 1, reservedForDevices: 0))
        let a = admitted(g.arrive(address: "a"))!
        guard case .refuse(.address, _) = g.arrive(address: "a") else { return XCTFail() }
        g.closed(a)
        g.closed(a)   // twice: no effect
        XCTAssertNotNil(admitted(g.arrive(address: "a")))
        XCTAssertEqual(g.open, 1)
    }

    func testOnlyAFewRefusedConnectionsAreKeptToBeAnswered() {
        var g = ConnectionGate(limits: .init(total: 100, perAddress: 1, reservedForDevices: 0, answering: 2))
        _ = g.arrive(address: "a")
        guard case .refuse(_, _?) = g.arrive(address: "a"), case .refuse(_, _?) = g.arrive(address: "a") else { return XCTFail() }
        XCTAssertEqual(g.arrive(address: "a"), .refuse(.address, answer: nil))
    }

    func testThePlacesKeptForDevicesAreNotGivenToUnregisteredConnections() {
        // 10 places, 4 kept for devices: 6 unregistered at most.
        var g = ConnectionGate(limits: .init(total: 10, perAddress: 100, reservedForDevices: 4, answering: 0))
        let ids = (0..<6).map { _ in admitted(g.arrive(address: "a"))! }
        XCTAssertEqual(g.arrive(address: "a"), .refuse(.full, answer: nil))
        // Registered devices leave the unregistered count: new ones fit again, up to the total.
        for id in ids.prefix(4) { g.registered(id) }
        XCTAssertEqual(g.unregistered, 2)
        for _ in 0..<4 { XCTAssertNotNil(admitted(g.arrive(address: "a"))) }
        XCTAssertEqual(g.open, 10)
        XCTAssertEqual(g.arrive(address: "a"), .refuse(.full, answer: nil))
        g.closed(ids[0])
        XCTAssertEqual(g.registered, 3)
        XCTAssertEqual(g.unregistered, 6)
        // A free place, but all unregistered places are taken (and "a" is the only address).
        XCTAssertEqual(g.arrive(address: "a"), .refuse(.full, answer: nil))
    }

    func testAFloodFromManyAddressesCantKeepANewcomerOut() {
        var g = ConnectionGate(limits: .init(total: 20, perAddress: 100, reservedForDevices: 4, answering: 0))
        var flood: [ConnectionGate.ID] = []
        for i in 0..<16 { flood.append(admitted(g.arrive(address: "flood-\(i % 4)"))!) }
        XCTAssertEqual(g.unregistered, 16)
        // Every flood address holds 4: a newcomer (0) gets the oldest place of the busiest.
        guard case .admit(let newcomer, let victim?) = g.arrive(address: "room-member") else { return XCTFail("not admitted") }
        XCTAssertEqual(victim, flood[0])
        XCTAssertEqual(g.open, 16)
        XCTAssertEqual(g.count(from: "flood-0"), 3)
        // The newcomer registers; another flood connection from a busy address is refused.
        g.registered(newcomer)
        XCTAssertNotNil(admitted(g.arrive(address: "flood-1")))   // 15 unregistered before: room for one
        XCTAssertEqual(g.arrive(address: "flood-2"), .refuse(.full, answer: nil))   // holds 4, the busiest 5: no eviction
    }

    func testRegisteringTwiceOrAfterClosingCountsOnce() {
        var g = ConnectionGate(limits: .init(total: 10, perAddress: 10, reservedForDevices: 2))
        let a = admitted(g.arrive(address: "a"))!
        g.registered(a)
        g.registered(a)
        XCTAssertEqual(g.registered, 1)
        g.closed(a)
        g.registered(a)
        XCTAssertEqual(g.registered, 0)
        XCTAssertEqual(g.open, 0)
    }
}
