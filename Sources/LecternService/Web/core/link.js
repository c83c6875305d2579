// The link: one WebSocket at /ws = one protocol session (one protocol frame per binary
// message, in any slicing). Requests are matched to replies by tag; pings are answered at
// once; unsolicited frames go to the handlers. Reconnecting is the session's (app/session.js):
// a dropped link stays dropped. No DOM: the socket comes from its constructor's caller.

import { utf8 } from './bytes.js';
import { C, FAILURES } from './protocol.js';
import { registerProof } from './crypto.js';
import {
  Deframer, splitFrame, encodeFrame, decodeHello, decodeError, decodeState, decodeFloorNote,
  encodeRegister, decodeRegisterOK, decodeFloorAck, encodeFloorModerate, encodeControl, encodePresent,
  encodeScreenshotRequest, encodePagePreview, decodeScreenshotData, decodeUploadProgress, decodeConversionProgress,
} from './wire.js';

export class ConnectionLost extends Error {}

export const OPEN_TIMEOUT_MS = 8000;
const OPEN = 1;   // WebSocket.OPEN

export class Link {
  // `WebSocket`: the socket's constructor (the page's own by default; a test passes a fake
  // with the same shape: send, close, readyState, bufferedAmount, onmessage, onclose).
  constructor(url, handlers, { WebSocket: Socket = globalThis.WebSocket } = {}) {
    this.url = url;
    this.handlers = handlers;   // onState, onFloorNote, onServerError, onClose
    this.Socket = Socket;
    this.device = 0xFF;
    this.nextTag = 0;
    this.pending = new Map();   // tag → { resolve, reject, pieces?, onChunkError? }
    this.progress = new Map();  // upload-begin tag → (stored) => void
    this.converting = new Map(); // upload-begin tag → (conversion-progress) => void (§30.3)
    this.inbox = new Deframer();
    this.closed = false;
    this.registered = false;   // register-ok came (a viewer keeps device byte 0xFF all the same)
    this.lastHeard = Date.now();
  }

  open() {
    return new Promise((resolve, reject) => {
      let ws;
      try { ws = new this.Socket(this.url); } catch (e) { reject(new ConnectionLost("Can't reach the appliance.")); return; }
      ws.binaryType = 'arraybuffer';
      this.ws = ws;
      this.helloWaiter = { resolve, reject };
      ws.onmessage = (ev) => this.received(ev.data);
      ws.onclose = () => this.gone();
      ws.onerror = () => {};
      // A connection that opens but never says hello (a network that swallows it) is given
      // up after a while, so the reconnect chain moves on.
      this.openTimer = setTimeout(() => { if (this.helloWaiter) this.close(); }, OPEN_TIMEOUT_MS);
    });
  }

  gone() {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.watchdog);
    clearTimeout(this.openTimer);
    // A fatal error the appliance sent before closing says why better than "lost".
    const err = this.fatal || new ConnectionLost('The connection to the appliance was lost.');
    if (this.helloWaiter) { this.helloWaiter.reject(this.fatal || new ConnectionLost("Can't reach the appliance.")); this.helloWaiter = null; }
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.progress.clear();
    this.converting.clear();
    if (this.handlers.onClose) this.handlers.onClose(this);
  }

  close() {
    try { this.ws.close(); } catch (e) { /* already closed */ }
    this.gone();
  }

  get isOpen() { return !this.closed && this.ws && this.ws.readyState === OPEN; }

  received(data) {
    if (this.closed) return;
    this.lastHeard = Date.now();
    this.inbox.push(new Uint8Array(data));
    for (;;) {
      let frame;
      try { frame = this.inbox.next(); } catch (e) { this.close(); return; }   // a length no frame has
      if (!frame) return;
      const f = splitFrame(frame);
      try { this.dispatch(f.command, f.device, f.tag, f.body); } catch (e) {
        console.error('lectern: bad frame', e);
      }
    }
  }

  send(command, body = new Uint8Array(0), tag) {
    if (tag === undefined) tag = this.newTag();
    if (this.isOpen) this.ws.send(encodeFrame(command, this.device, tag, body));
    return tag;
  }

  newTag() {
    do { this.nextTag = this.nextTag >= 0xFFFF ? 1 : this.nextTag + 1; } while (this.pending.has(this.nextTag) || this.progress.has(this.nextTag) || this.converting.has(this.nextTag));
    return this.nextTag;
  }

  // Sends a request; resolves with { command, body } of its direct reply, or rejects with
  // the ServerError of a failure reply (or ConnectionLost).
  request(command, body) {
    if (!this.isOpen) return Promise.reject(new ConnectionLost('Not connected to the appliance.'));
    return new Promise((resolve, reject) => {
      const tag = this.newTag();
      this.pending.set(tag, { resolve, reject });
      this.send(command, body, tag);
    });
  }

  dispatch(command, device, tag, body) {
    if (command === C.ping) { this.send(C.pong, body.slice(), tag); return; }
    if (command === C.hello) {
      const h = decodeHello(body);
      this.hello = h;
      const t = Math.max(2000, h.timeoutMs || 6000);
      this.watchdog = setInterval(() => {
        if (Date.now() - this.lastHeard > t) this.close();   // silent for the time-out: gone
      }, 500);
      if (this.helloWaiter) { this.helloWaiter.resolve(h); this.helloWaiter = null; }
      return;
    }
    if (command === C.uploadProgress && this.progress.has(tag)) {
      this.progress.get(tag)(decodeUploadProgress(body));
      return;
    }
    if (command === C.conversionProgress && this.converting.has(tag)) {
      this.converting.get(tag)(decodeConversionProgress(body));
      return;
    }
    const p = tag !== 0 ? this.pending.get(tag) : undefined;
    if (p) {
      if (FAILURES.has(command)) {
        this.pending.delete(tag);
        const e = decodeError(body);
        if (p.onChunkError) p.onChunkError(e); else p.reject(e);
        return;
      }
      if (p.onFrame && p.onFrame(command, body)) return;   // a request with several replies (record-view.js)
      if (command === C.screenshotData) {
        const { width, height, total, offset, data } = decodeScreenshotData(body);
        p.pieces = p.pieces || [];
        p.pieces.push(data);
        p.got = (p.got || 0) + data.length;
        if (offset + data.length >= total) {
          this.pending.delete(tag);
          // A JPEG when one was welcome and smaller (it starts FF D8 FF), else a PNG.
          const head = p.pieces[0] || new Uint8Array(0);
          const jpeg = head.length > 2 && head[0] === 0xFF && head[1] === 0xD8 && head[2] === 0xFF;
          p.resolve({ width, height, bytes: p.got, png: new Blob(p.pieces, { type: jpeg ? 'image/jpeg' : 'image/png' }) });
        }
        return;
      }
      this.pending.delete(tag);
      p.resolve({ command, body });
      return;
    }
    switch (command) {
      case C.state:
        this.handlers.onState(decodeState(body));
        break;
      case C.floorGranted:
      case C.floorWithdrawn: {
        const n = decodeFloorNote(body);
        this.handlers.onFloorNote(command === C.floorGranted, n.reason, n.by);
        break;
      }
      case C.error:
      case C.registerFailed:
      case C.controlFailed: {
        const e = decodeError(body);
        if (e.closes) this.fatal = e;
        this.handlers.onServerError(e);
        break;
      }
      default:
        if (this.handlers.onMessage) this.handlers.onMessage(command, body);
        break;
    }
  }

  // ── requests ──

  async register(role, name, key, token) {
    const nameBytes = utf8.encode(name);
    const h = this.hello;
    const proof = key ? await registerProof(key, h.challenge, role, nameBytes, token) : new Uint8Array(32);
    const reply = await this.request(C.register, encodeRegister(role, proof, token, nameBytes));
    const ok = decodeRegisterOK(reply.body);
    this.device = ok.id;
    this.registered = true;
    return ok;
  }

  control(signal, parameter = 0) {
    return this.request(C.control, encodeControl(signal, parameter));
  }

  moderate(action, target) { return this.request(C.floorModerate, encodeFloorModerate(action, target)); }

  async requestFloor() {
    const reply = await this.request(C.floorRequest, new Uint8Array(0));
    return decodeFloorAck(reply.body);
  }

  present(id, page = 1) { return this.request(C.present, encodePresent(id, page)); }

  // The output's frame; scaled to at most maxWidth × maxHeight when given (§6.8).
  screenshot(maxWidth = 0, maxHeight = 0, jpeg = false) {
    return this.image(C.screenshotRequest, encodeScreenshotRequest(maxWidth, maxHeight, jpeg));
  }

  // A page of an upload as the output would show it, at most maxWidth × maxHeight (§6.9).
  pagePreview(id, page, maxWidth, maxHeight = 0) {
    return this.image(C.pagePreview, encodePagePreview(id, page, maxWidth, maxHeight));
  }

  // A request answered with screenshot-data pieces: resolves to { width, height, png }.
  image(command, body) {
    if (!this.isOpen) return Promise.reject(new ConnectionLost('Not connected to the appliance.'));
    return new Promise((resolve, reject) => {
      const tag = this.newTag();
      this.pending.set(tag, { resolve, reject });
      this.send(command, body, tag);
    });
  }
}
