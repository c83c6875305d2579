import LecternModel
import LecternProtocol

/// The pointer and ink (docs/protocol.md §22) from the client side.
extension LecternConnection {
    /// Sends a pointer position (page coordinates 0…1); no reply is waited for.
    @discardableResult
    public func point(x: Double, y: Double, lifted: Bool = false) -> UInt16 {
        send(.ink(.pointer(InkPoint(px: x, py: y), lifted: lifted)))
    }

    /// Waits until the server handled everything sent so far (a state round trip) and
    /// throws the first error it sent for one of `tags` (messages without a reply).
    public func confirm(_ tags: [UInt16]) throws {
        _ = try state()
        if let e = inbox.firstFailure(tags: tags) { throw ClientError.server(e) }
    }

    /// Draws one stroke through `points` (page coordinates), sent in messages of at most
    /// `InkMessage.maxPointsPerMessage` points; returns the server's stroke-ok.
    @discardableResult
    public func draw(
        _ points: [InkPoint], tool: InkTool = .pen, width: InkWidth = .thin, colorIndex: UInt8 = 0,
        perMessage: Int = InkMessage.maxPointsPerMessage
    ) throws -> StrokeOK {
        let n = max(1, min(perMessage, InkMessage.maxPointsPerMessage))
        var tags = [send(.ink(.strokeBegin(StrokeBegin(tool: tool, width: width, colorIndex: colorIndex, points: Array(points.prefix(n))))))]
        var i = n
        while i < points.count {
            tags.append(send(.ink(.strokePoints(Array(points[i..<min(points.count, i + n)])))))
            i += n
        }
        let end = send(.ink(.strokeEnd([])))
        do {
            guard case .ink(.strokeOK(let ok)) = try reply(tag: end, what: "stroke-end") else { throw ClientError.unexpected("stroke-ok") }
            if let e = inbox.firstFailure(tags: tags) { throw ClientError.server(e) }
            return ok
        } catch {
            if let e = inbox.firstFailure(tags: tags) { throw ClientError.server(e) }
            throw error
        }
    }

    public func inkUndo() throws { _ = try request(.ink(.undo)) }
    public func inkErase() throws { _ = try request(.ink(.erase)) }
    public func inkClear(deck: Bool = false) throws { _ = try request(.ink(.clear(deck: deck))) }
    public func inkAllow(_ device: DeviceID, _ on: Bool = true) throws { _ = try request(.ink(.allow(device: device, on: on))) }

    /// The finished strokes of a page (nil: the page on screen).
    public func inkStrokes(content: ContentID? = nil, page: UInt32 = 0) throws -> [InkStroke] {
        guard case .ink(.page(let s)) = try request(.ink(.fetch(content: content, page: page))) else { throw ClientError.unexpected("ink-page") }
        return s
    }
}
