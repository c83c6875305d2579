import Foundation
import LecternModel
import LecternDisplay
import LecternPipeline
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import Logging
import NIOCore
import NIOEmbedded
import NIOWebSocket
import XCTest

/// The room's shell without sockets: `Room` on NIO's thread-safe testing event loop, its
/// peers as `PeerHandler`s on in-memory channels, a real stage (virtual display) and
/// content store. Time is the loop's: the keep-alive runs only when the test moves it.
final class RoomShellTests: XCTestCase {
    var dir = ""
    var loop: NIOAsyncTestingEventLoop!
    var room: Room!
    var stage: Stage!
    var deckID = ""

    override func setUp() async throws {
        dir = Fixtures.tempDir("room-shell")
        let store = try ContentStore(dataDir: dir + "/data")
        deckID = try store.add(fileAt: try Fixtures.numberedDeck(count: 4, in: dir)).id
        let display = VirtualDisplay(mode: DisplayMode(width: 640, height: 360, refresh: 60))
        let compositor = Compositor(
            settings: .init(width: 640, height: 360),
            idle: IdleScreen(room: "Shell Room", addresses: ["192.0.2.7"], port: 7420),
            documents: { try store.document($0) })
        stage = Stage(output: display, compositor: compositor)
        try stage.show(.idle)
        loop = NIOAsyncTestingEventLoop()
        var config = Config.testRoom(dataDir: dir + "/data", floor: .open, passcode: "shell-passcode", moderatorPasscode: nil)
        config.keepaliveTimeout = 6
        let loop = self.loop!
        room = try Room(
            loop: loop, config: config, stage: stage, store: store, logger: Logger(label: "room-shell"),
            clock: { Double(loop.now.uptimeNanoseconds) / 1e9 })
    }

    override func tearDown() async throws {
        try await loop.shutdownGracefully()
    }

    /// A peer on an in-memory channel: the bytes the room writes are its outbound writes.
    func connect(_ handlers: [ChannelHandler] = []) async throws -> NIOAsyncTestingChannel {
        let channel = NIOAsyncTestingChannel(loop: loop)
        try await channel.pipeline.addHandlers(handlers + [PeerHandler(room: room)])
        try await channel.connect(to: SocketAddress(ipAddress: "192.0.2.50", port: 4000)).get()
        return channel
    }

    /// What the room wrote, cut into frames (a write may hold several).
    var decoder = FrameDecoder()
    var received: [WireFrame] = []

    /// The next message the room sent on `channel`, within a deadline.
    func next(_ channel: NIOAsyncTestingChannel, _ what: String) async throws -> Message {
        let deadline = Date() + 20
        while Date() < deadline {
            if !received.isEmpty { return try Message.decode(received.removeFirst(), sentBy: .server) }
            if var buf = try await channel.readOutbound(as: ByteBuffer.self) {
                received += try decoder.decode(buf.readBytes(length: buf.readableBytes)!)
                continue
            }
            await loop.run()
            await Task.yield()
        }
        XCTFail("no \(what) within 20 s")
        throw CancellationError()
    }

    /// The next reply, skipping state pushes.
    func reply(_ channel: NIOAsyncTestingChannel, _ what: String) async throws -> Message {
        while true {
            let m = try await next(channel, what)
            if case .state = m { continue }
            return m
        }
    }

    func send(_ m: Message, on channel: NIOAsyncTestingChannel, device: UInt8) async throws {
        try await channel.writeInbound(ByteBuffer(bytes: m.encode(tag: 1, deviceID: device)))
    }

    var challenge: [UInt8] = []

    func register(_ channel: NIOAsyncTestingChannel) async throws -> DeviceID {
        guard case .hello(let hello) = try await next(channel, "hello") else { throw CancellationError() }
        challenge = hello.challenge
        let proof = RegisterProof.compute(
            passcode: "shell-passcode", parameters: hello.presenter!, challenge: hello.challenge,
            role: .presenter, name: "Ana", resumeToken: nil)
        try await send(.register(RegisterRequest(role: .presenter, proof: proof, resumeToken: nil, name: "Ana")), on: channel, device: 0xFF)
        guard case .registerOK(let ok) = try await reply(channel, "register-ok") else { throw CancellationError() }
        return ok.deviceID
    }

    func testAPeerRegistersAndItsPresentIsAnsweredOnceTheStageShowsThePage() async throws {
        let channel = try await connect()
        let me = try await register(channel)
        try await send(.floorRequest, on: channel, device: me)
        let ack = try await reply(channel, "floor-ack")
        XCTAssertEqual(ack, .floorAck(.holder))
        // The deck was stored before the room started: the room knows it, but Ana didn't upload it.
        let deck = ContentID(hex: deckID)!
        try await send(.present(content: deck, page: 2), on: channel, device: me)
        let refused = try await reply(channel, "present reply")
        XCTAssertEqual(refused, .error(.notYourContent))
        // She has the file: her possession proof, checked against the stored file by the worker, makes it hers.
        let file = try Data(contentsOf: URL(fileURLWithPath: dir + "/numbered.pdf"))
        let proof = PossessionProof.compute(challenge: challenge, file: [UInt8](file))
        try await send(
            .uploadBegin(UploadBegin(content: deck, size: UInt64(file.count), kind: .pdf, proof: proof, name: "numbered.pdf")),
            on: channel, device: me)
        guard case .uploadReady(let ready) = try await reply(channel, "upload-ready"), ready.status == .stored else {
            return XCTFail("the proof was not accepted")
        }
        try await send(.present(content: deck, page: 2), on: channel, device: me)
        let presented = try await reply(channel, "present-ok")
        XCTAssertEqual(presented, .presentOK)
        let expected = try Compositor.renderPage(try PDFDocument(path: dir + "/numbered.pdf"), page: 2, settings: stage.compositor.settings)
        XCTAssertEqual(PixelCompare.differingPixels(stage.screenshot(), expected), 0, "page 2 is on the output when present-ok comes")
    }

    func testSilenceOnTheLoopsClockDropsThePeer() async throws {
        let channel = try await connect()
        _ = try await register(channel)
        await loop.advanceTime(by: .seconds(7))
        var sawTimeout = false
        while let m = try? await next(channel, "timed-out error") {
            if case .error(let e) = m, e.code == .timedOut { sawTimeout = true; break }
        }
        XCTAssertTrue(sawTimeout)
        try await channel.closeFuture.get()
    }

    func testAWebSocketPeerSpeaksTheSameProtocolInBinaryMessages() async throws {
        let channel = try await connect([WebSocketFrameAdaptor()])
        guard let helloFrame = try await channel.readOutbound(as: WebSocketFrame.self) else { return XCTFail("no hello") }
        XCTAssertEqual(helloFrame.opcode, .binary)
        var data = helloFrame.data
        let bytes = data.readBytes(length: data.readableBytes)!
        guard case .hello = try Message.decode(WireFrame(header: FrameHeader.decode(bytes), body: Array(bytes[8...])), sentBy: .server) else {
            return XCTFail("not a hello")
        }
        // Text is not this protocol: the connection is closed with 1003.
        try await channel.writeInbound(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: "hi")))
        guard var close = try await channel.readOutbound(as: WebSocketFrame.self) else { return XCTFail("no close") }
        XCTAssertEqual(close.opcode, .connectionClose)
        XCTAssertEqual(close.data.readWebSocketErrorCode(), .unacceptableData)
    }
}
