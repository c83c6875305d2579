import LecternModel
import LecternProtocol
@testable import LecternRoom
import XCTest

/// Which replies wait for which state write (issue 25, finding 9): a table of events'
/// effects in, what goes at once and what each write releases out. Pure: no writer, no clock.
final class DurableRepliesTests: XCTestCase {
    static func frame(_ tag: UInt16, _ marker: UInt8) -> [UInt8] { Message.ok.encode(tag: tag, deviceID: 1) + [marker] }
    static let state = SavedState()

    /// What an effect list carries, as text: `send c:tag:marker`, `close c`, `persist`, `other`.
    static func text(_ effects: [RoomEffect]) -> [String] {
        effects.map {
            switch $0 {
            case .send(let id, let b): "send \(id):\(DurableReplies.tag(b)):\(b.last!)"
            case .close(let id): "close \(id)"
            case .persist: "persist"
            default: "other"
            }
        }
    }

    static func text(_ released: [(ConnectionID, DurableReplies.Held)]) -> [String] {
        released.map { id, item in
            switch item {
            case .write(let b): "send \(id):\(DurableReplies.tag(b)):\(b.last!)"
            case .close: "close \(id)"
            }
        }
    }

    func testTheTable() {
        var d = DurableReplies()
        // 1. A stroke's ok with the state write: the ok waits; the push to another device (tag 0) goes.
        XCTAssertEqual(
            Self.text(d.pass([.send(1, Self.frame(5, 1)), .send(2, Self.frame(0, 2)), .persist(Self.state), .wake(at: nil)])),
            ["send 2:0:2", "persist", "other"])
        XCTAssertEqual(d.asked, 1)
        // 2. No write in this event, but connection 1 has a reply waiting: its push waits behind it; 2's goes.
        XCTAssertEqual(Self.text(d.pass([.send(1, Self.frame(0, 3)), .send(2, Self.frame(9, 4))])), ["send 2:9:4"])
        XCTAssertEqual(d.heldCount, 2)
        // 3. Two writes in one event: one persist (the last, the newest state), generation 2;
        //    its replies wait; a push to 3 goes; 1's error and close wait behind 1's frames.
        XCTAssertEqual(
            Self.text(d.pass([.persist(Self.state), .send(3, Self.frame(0, 5)), .send(3, Self.frame(6, 6)), .persist(Self.state), .send(1, Self.frame(8, 7)), .close(1)])),
            ["send 3:0:5", "persist"])
        XCTAssertEqual(d.asked, 2)
        // Generation 1 on disk: 1's first ok and the push behind it; not what waits for 2.
        XCTAssertEqual(Self.text(d.written(1)), ["send 1:5:1", "send 1:0:3"])
        // Generation 2 (grouped: one write held both): the rest, each connection in order.
        XCTAssertEqual(Self.text(d.written(2)), ["send 1:8:7", "close 1", "send 3:6:6"])
        XCTAssertEqual(d.heldCount, 0)
        // 4. Nothing waits: everything goes at once.
        XCTAssertEqual(Self.text(d.pass([.send(1, Self.frame(4, 8)), .close(2)])), ["send 1:4:8", "close 2"])
        // 5. A connection that closed drops what waited for it; a late or repeated report is harmless.
        _ = d.pass([.send(4, Self.frame(1, 9)), .persist(Self.state)])
        d.closed(4)
        XCTAssertEqual(Self.text(d.written(3)), [])
        XCTAssertEqual(Self.text(d.written(1)), [])
        XCTAssertEqual(d.durable, 3)
        // 6. Two events, one write holding both (the writer took the newest state): both go.
        _ = d.pass([.send(5, Self.frame(2, 10)), .persist(Self.state)])
        _ = d.pass([.send(6, Self.frame(3, 11)), .persist(Self.state)])
        XCTAssertEqual(d.asked, 5)
        XCTAssertEqual(Self.text(d.written(5)), ["send 5:2:10", "send 6:3:11"])
    }
}
