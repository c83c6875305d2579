import LecternModel
import LecternRoom

extension Room {
    /// A reply that acknowledges a change of the saved state goes out once the state
    /// write holding it is on disk (DurableReplies decides which wait; the writer reports
    /// each write). A write that failed releases them too, logged. Set up by `init` when
    /// the room has a state writer.
    func holdRepliesUntilDurable() {
        guard let writer = stateWriter else { return }
        let logger = self.logger
        writer.onWritten = { [weak self] generation, error in
            if let error { logger.error("state not saved: \(error) (replies sent all the same)") }
            guard let self else { return }
            self.onLoopWhileRunning { self.released(generation) }
        }
        durable = DurableReplies()   // in init: nothing runs on the loop for the room yet
    }

    private func released(_ generation: UInt64) {
        guard var d = durable else { return }
        let out = d.written(generation)
        durable = d
        for (id, item) in out {
            switch item {
            case .write(let bytes): link(id)?.write(bytes)
            case .close: link(id)?.close()
            }
        }
    }
}
