import Logging
import NIOCore

// The web remote: a small HTTP server on `http_port` that serves the web app (the files
// of `Web/`: the pages and style sheets, the entry module lectern.js, and the ES modules
// it imports from `Web/app/` and `Web/core/`) and, at `/ws`, carries the wire protocol over a WebSocket: every binary
// message from the browser is bytes of protocol frames (the peer handler's decoder takes
// any slicing), and every frame the room sends goes out as one binary message. One protocol, one set of rules: the browser is just another peer
// of the `Room`, like a TCP connection.

extension Service {
    /// How long the web remote waits before trying its port again when it is taken.
    static let webRemoteRetrySeconds: Int64 = 10

    /// Starts the web remote (HTTP + WebSocket) if configured (`http_port`, nil = off).
    ///
    /// A port that is taken does not stop the service: the projector and the wire protocol
    /// keep working (a restart loop would black out the room), the log says why browsers
    /// can't join, and the port is tried again every 10 s until it is free.
    func startWebRemote(group: EventLoopGroup) throws {
        guard let wanted = options.config.httpPort else {
            logger.info("web remote: off (http_port = 0)")
            return
        }
        let assets = WebAssets.load(logger: logger)
        let server = WebRemoteServer(
            group: group, room: room, assets: assets, logger: logger, admission: admission,
            timeouts: WebHTTPHandler.Timeouts(head: options.config.httpHeadTimeout, idle: options.config.httpIdleTimeout),
            transport: transport, tls: tls)
        let host = options.host, logger = self.logger
        do {
            let bound = try server.bind(host: host, port: wanted).wait()
            listening(server, port: bound, assets: assets)
        } catch {
            logger.error(
                "web remote: can't listen on http_port \(wanted): \(error). Browsers can't join until it is free (another program on that port?); trying again every \(Self.webRemoteRetrySeconds) s. http_port = 0 turns the web remote off."
            )
            retryWebRemote(server, host: host, port: wanted, assets: assets, loop: group.next())
        }
    }

    private func retryWebRemote(_ server: WebRemoteServer, host: String, port: Int, assets: WebAssets, loop: EventLoop) {
        loop.scheduleTask(in: .seconds(Self.webRemoteRetrySeconds)) { [weak self] in
            guard let self else { return }
            server.bind(host: host, port: port).whenComplete { [weak self] result in
                guard let self else { return }
                switch result {
                case .success(let bound): self.listening(server, port: bound, assets: assets)
                case .failure: self.retryWebRemote(server, host: host, port: port, assets: assets, loop: loop)
                }
            }
        }
    }

    private func listening(_ server: WebRemoteServer, port: Int, assets: WebAssets) {
        setWebRemote(server, port: port)
        logger.info("web remote: \(tlsIdentity == nil ? "http" : "https")://\(options.host):\(port)/ (files from \(assets.source))")
    }
}
