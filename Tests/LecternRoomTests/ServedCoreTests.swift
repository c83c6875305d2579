import LecternModel
import LecternProtocol
@testable import LecternRoom
import XCTest

/// What the shell serves outside the protocol (the deck download, page images, the wall's
/// joining corner) comes from the core as effects when it changes (RoomCore+Served.swift):
/// the shell reads nothing back from the core after an event.
final class ServedCoreTests: XCTestCase {
    typealias H = RoomCoreHarness

    /// The served-fact effects among `effects`, in order.
    static func served(_ effects: [RoomEffect]) -> [RoomEffect] {
        effects.filter {
            switch $0 {
            case .offerDownload, .pageImageAccess, .joining: return true
            default: return false
            }
        }
    }

    static func access(_ effects: [RoomEffect]) -> PageImageAccess? {
        served(effects).compactMap { if case .pageImageAccess(let a) = $0 { return a } else { return nil } }.last
    }

    func testJoiningIsToldWhenItChangesAndOnlyThen() {
        let h = H(floor: .open)
        XCTAssertEqual(Self.served(h.handle(.opened(1, address: "10.0.0.2", challenge: H.challenge(1)))), [.joining(count: 1)])
        XCTAssertEqual(Self.served(h.handle(.opened(2, address: "10.0.0.3", challenge: H.challenge(2)))), [.joining(count: 2)])
        XCTAssertEqual(Self.served(h.handle(.tick)), [], "nothing changed: nothing told")
        XCTAssertEqual(Self.served(h.handle(.closed(2))), [.joining(count: 1)])
        let ana = h.join(3, name: "Ana")
        XCTAssertTrue(h.log.contains(.joining(count: 2)), "Ana's connection joining")
        XCTAssertEqual(h.log.last { if case .joining = $0 { true } else { false } }, .joining(count: 1), "registered: no longer joining")
        XCTAssertEqual(Self.served(h.send(.stateRequest, from: 3, device: ana)), [])
    }

    func testPageImagesAndTheDownloadFollowTheWallAndTheHolder() {
        let h = H(floor: .open, catalog: [deck(1, name: "talk.pdf")])
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        h.own(cid(1), from: 1, device: ana)
        let asked = h.send(.present(content: cid(1), page: 2), from: 1, device: ana)
        XCTAssertNil(Self.access(asked), "the page counts once it is on the wall")
        let shown = Self.access(h.shown(asked))
        XCTAssertEqual(shown?.content, cid(1).hex)
        XCTAssertEqual(shown?.page, 2)
        XCTAssertEqual(shown?.keys, [], "no viewer yet")

        // A viewer joins: its key may fetch.
        let hello = h.open(100, address: "10.1.0.1")
        let proof = RegisterProof.compute(
            passcode: H.presenterPasscode, parameters: hello.parameters(for: .viewer)!, challenge: hello.challenge, role: .viewer, name: "",
            resumeToken: nil)
        let viewed = h.send(.register(RegisterRequest(role: .viewer, proof: proof, resumeToken: nil, name: "")), from: 100)
        XCTAssertEqual(Self.access(viewed)?.keys.count, 1)

        // The holder allows the download: its token is the one in the state.
        let allowed = h.send(.audienceSet(.allowDownload), from: 1, device: ana)
        let url = h.core.snapshot(now: h.now).audience?.downloadURL
        XCTAssertEqual(
            Self.served(allowed).compactMap { if case .offerDownload(let o) = $0 { return o } else { return nil } },
            [DownloadOffer(token: String(url?.dropFirst("/download/".count) ?? ""), content: cid(1).hex, name: "talk.pdf")])
        XCTAssertNotNil(url)

        // Revoked: the token is gone at once.
        XCTAssertEqual(Self.served(h.send(.audienceSet(.revokeDownload), from: 1, device: ana)), [.offerDownload(nil)])

        // Blanked: no page to fetch.
        let blanked = h.shown(h.send(.control(.blank(white: false)), from: 1, device: ana))
        XCTAssertNotNil(Self.access(blanked), "told")
        XCTAssertNil(Self.access(blanked)?.content, "a blanked wall serves no page")
    }
}
