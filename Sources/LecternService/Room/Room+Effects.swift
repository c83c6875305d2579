import LecternModel
import LecternProtocol
import LecternRoom
import NIOCore

/// The room's effects carried out as the core returned them, in order: each one to the
/// worker, link or store that does it. Nothing decided here.
extension Room {
    func carry(_ all: [RoomEffect]) {
        for effect in all { metrics?.observe(effect, now: clock()) }
        // Replies wait for the state write holding what they acknowledge.
        let effects = durable?.pass(all) ?? all
        for effect in effects {
            switch effect {
            case .send(let id, let bytes): links[id]?.write(bytes)
            case .close(let id): links[id]?.close()
            case .setReading(let id, let on): links[id]?.setReading(on)
            case .registered(let id): links[id]?.registered()
            case .newScreenCode(let code): rekey(for: code)
            case .wake(let at):
                wakeTask?.cancel()
                wakeTask = at.map { at in
                    loop.scheduleTask(in: .milliseconds(Int64(max(0, at - clock()) * 1000) + 5)) { [weak self] in self?.feed(.wake) }
                }
            case .showWall(let op, let plan): stageWorker.showWall(op: op, plan)
            case .openClip(let serial, let content): stageWorker.openClip(serial: serial, content: content)
            case .playClip(let serial, let loop, let layout, let pane): stageWorker.playClip(serial: serial, loop: loop, layout: layout, pane: pane)
            case .clipSound(let serial): stageWorker.clipSound(serial: serial)
            case .discardClip(let serial): stageWorker.discardClip(serial: serial)
            case .steerClip(let serial, let command): stageWorker.steerClip(serial: serial, command)
            case .shareStart(let serial, let config): shareWorker.start(serial: serial, config)
            case .shareRoute(let serial, let connection, let device): shareWorker.route(serial: serial, connection: connection, device: device)
            case .shareStop(let serial): shareWorker.stop(serial: serial)
            case .sharePicture(let id, let tag, let serial, let w, let h):
                shareWorker.picture(id, tag: tag, serial: serial, maxWidth: w, maxHeight: h)
            case .shareRecordFrame(let serial, let path, let after): shareWorker.recordFrame(serial: serial, path: path, after: after)
            case .clearRecordFrames(let directory): shareWorker.clearRecordFrames(directory)
            case .openPart(let content, let writer, let offset, let hashing):
                uploadWorker.openPart(content, writer: writer, offset: offset, hashing: hashing)
            case .writeChunk(let content, let writer, let data): uploadWorker.writeChunk(content, writer: writer, data)
            case .closePart(let content, let writer): uploadWorker.closePart(content, writer: writer)
            case .removePart(let content): uploadWorker.area.remove(content.hex)
            case .checkProof(let id, let tag, let begin, let challenge):
                uploadWorker.checkProof(id, tag: tag, begin, challenge: challenge)
            case .finishUpload(let id, let tag, let writer, let upload): uploadWorker.finish(id, tag: tag, writer: writer, upload)
            case .screenshot(let id, let tag, let w, let h, let jpeg): stageWorker.screenshot(id, tag: tag, maxWidth: w, maxHeight: h, jpeg: jpeg)
            case .renderPreview(let id, let tag, let content, let page, let w, let h, let part):
                stageWorker.renderPreview(id, tag: tag, content: content, page: page, maxWidth: w, maxHeight: h, part: part)
            case .saveNotes(let content, let notes):
                do { try store.saveNotes(notes, for: content.hex) } catch { logger.warning("notes of \(content.hex.prefix(12)) not saved: \(error)") }
            case .removeUpload(let content): store.removeUpload(content.hex)
            case .startConversion(let entry, let format): conversionWorker.start(entry, format: format)
            case .stopConversion(let content): conversionWorker.stop(content)
            case .discardUpload(let content): store.discardUpload(content.hex)
            case .storeImageSet(let id, let tag, let set): uploadWorker.storeImageSet(id, tag: tag, set)
            case .prerender(let content, let page, let part): stageWorker.stage.compositor.prerenderNeighbours(content: content, page: page, part: part)
            case .prepareConverter(let name): conversionWorker.converters.prepare(forFileNamed: name)
            case .inkPage(let page, let layer): stageWorker.stage.ink.setLayer(layer, for: .init(content: page.content, page: page.page))
            case .pointer(let device, let page, let point, let lifted):
                stageWorker.stage.ink.point(device, page: .init(content: page.content, page: page.page), point, lifted: lifted)
            case .setFallbackTransition(let t): stageWorker.stage.setFallbackTransition(t)
            case .persist(let state): stateWriter?.save(state, generation: durable?.asked ?? 0)
            case .setSound(let level, let muted): stageWorker.sound?.level.set(level: level, muted: muted)
            case .log(let level, let message): logger.log(level: level, "\(message)")
            case .makeRecord(let id, let tag, let job):
                let store = self.store
                if let recordMaker {
                    recordMaker.make(job, for: id, tag: tag, paths: { store.deckPath(of: $0) }, report: report)
                } else {
                    feed(.recordMade(id, tag: tag, .failure(.recordFailed("the appliance can't make records now"))))
                }
            case .offerDownload(let offer):
                download.set(offer.map { DeckDownload.Offer(token: $0.token, path: store.deckPath(of: $0.content), name: $0.name) })
            case .pageImageAccess(let access): pageImages.setAccess(access)
            case .joining(let count):
                codes.joining = count
                checkJoiningCorner()
            case .keysInForce(let serial):
                let due = codes.keysAwaited.filter { $0.serial <= serial }
                codes.keysAwaited.removeAll { $0.serial <= serial }
                for d in due { d.then() }
            case .sendRecord(let id, let tag, let device, let pages, let pdf):
                guard let link = links[id], let file = pdf.file as? FileChunks else {
                    feed(.recordSent(id, tag: tag))
                    break
                }
                let report = self.report
                RecordSender(link: link, file: file, tag: tag, device: device, pages: pages, loop: loop) { report(.recordSent(id, tag: tag)) }.start()
            }
        }
    }
}
