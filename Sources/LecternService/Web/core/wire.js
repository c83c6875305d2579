// The wire (docs/protocol.md §2, §5, §6): frames in a byte stream, and each message's body,
// its encoder beside its decoder. Pure functions of bytes; the link (link.js) sends and
// receives them.

import { utf8, utf8Decoder, concatBytes, fromHex } from './bytes.js';
import { MAX_FRAME, PROTOCOL_VERSION } from './protocol.js';

// ── fields ──

export class Writer {
  constructor() { this.parts = []; }
  u8(v) { this.parts.push(new Uint8Array([v & 255])); return this; }
  u16(v) { this.parts.push(new Uint8Array([(v >>> 8) & 255, v & 255])); return this; }
  u32(v) { const b = new Uint8Array(4); new DataView(b.buffer).setUint32(0, v >>> 0); this.parts.push(b); return this; }
  u64(v) { const b = new Uint8Array(8); const d = new DataView(b.buffer); d.setUint32(0, Math.floor(v / 0x100000000)); d.setUint32(4, v >>> 0); this.parts.push(b); return this; }
  bytes(b) { this.parts.push(b); return this; }
  string16(s) { const b = utf8.encode(s); return this.u16(b.length).bytes(b); }
  done() { return concatBytes(this.parts); }
}

export class Reader {
  constructor(bytes) { this.b = bytes; this.o = 0; this.v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength); }
  need(n) { if (this.o + n > this.b.length) throw new Error('The appliance sent a message shorter than its fields.'); }
  u8() { this.need(1); return this.b[this.o++]; }
  u16() { this.need(2); const x = this.v.getUint16(this.o); this.o += 2; return x; }
  u32() { this.need(4); const x = this.v.getUint32(this.o); this.o += 4; return x; }
  u64() { this.need(8); const x = this.v.getUint32(this.o) * 0x100000000 + this.v.getUint32(this.o + 4); this.o += 8; return x; }
  bytes(n) { this.need(n); const x = this.b.subarray(this.o, this.o + n); this.o += n; return x; }
  string16() { return utf8Decoder.decode(this.bytes(this.u16())); }
  rest() { const x = this.b.subarray(this.o); this.o = this.b.length; return x; }
}

// ── frames (§2) ──

export function encodeFrame(command, device, tag, body) {
  const f = new Uint8Array(8 + body.length);
  const v = new DataView(f.buffer);
  v.setUint8(0, command); v.setUint8(1, device); v.setUint16(2, tag); v.setUint32(4, f.length);
  f.set(body, 8);
  return f;
}

export class FramingError extends Error {}

// Cuts the byte stream (WebSocket messages of any size) into whole frames.
export class Deframer {
  constructor() { this.inbox = []; this.inboxBytes = 0; }

  push(bytes) { this.inbox.push(bytes); this.inboxBytes += bytes.length; }

  // The next whole frame, or null until more bytes come; throws FramingError for a length
  // no frame can have.
  next() {
    if (this.inboxBytes < 8) return null;
    if (this.inbox[0].length < 8) this.inbox = [concatBytes(this.inbox)];
    const head = this.inbox[0];
    const length = new DataView(head.buffer, head.byteOffset, 8).getUint32(4);
    if (length < 8 || length > MAX_FRAME) throw new FramingError('a frame of ' + length + ' bytes');
    if (this.inboxBytes < length) return null;
    if (head.length < length) this.inbox = [concatBytes(this.inbox)];
    const all = this.inbox[0];
    const frame = all.subarray(0, length);
    if (all.length > length) this.inbox[0] = all.subarray(length); else this.inbox.shift();
    this.inboxBytes -= length;
    return frame;
  }
}

// The header's fields and the body of a whole frame.
export function splitFrame(frame) {
  return { command: frame[0], device: frame[1], tag: (frame[2] << 8) | frame[3], body: frame.subarray(8) };
}

// ── session (§6.1) ──

export function decodeHello(body) {
  const r = new Reader(body);
  const h = { version: r.u16(), challenge: r.bytes(32).slice(), maxFrameLength: r.u32(), pingIntervalMs: r.u32(), timeoutMs: r.u32() };
  const roles = [];
  for (let i = 0; i < 2; i++) {
    const rounds = r.u32();
    const salt = r.bytes(r.u8()).slice();
    roles.push(rounds ? { rounds, salt } : null);
  }
  h.presenter = roles[0]; h.moderator = roles[1];
  h.room = r.string16(); h.server = r.string16();
  return h;
}

// A failure reply (§6.1 error body): the message is what people see.
export class ServerError extends Error {
  constructor(code, closes, detail, message) {
    super(message);
    this.code = code; this.closes = closes; this.detail = detail;
  }
}

export function decodeError(body) {
  const r = new Reader(body);
  const code = r.u16(), flags = r.u8();
  r.u8();
  const detail = r.u64();
  return new ServerError(code, (flags & 1) !== 0, detail, r.string16());
}

export function decodeState(body) { return JSON.parse(utf8Decoder.decode(body)); }

// ── registration (§7) ──

export function encodeRegister(role, proof, token, nameBytes) {
  return new Writer().u16(PROTOCOL_VERSION).u8(role).bytes(proof)
    .u8(token ? token.length : 0).bytes(token || new Uint8Array(0)).u16(nameBytes.length).bytes(nameBytes).done();
}

export function decodeRegisterOK(body) {
  const r = new Reader(body);
  const ok = { id: r.u8(), role: r.u8() };
  const flags = r.u8();
  ok.resumed = (flags & 1) !== 0; ok.floorRestored = (flags & 2) !== 0;
  ok.token = r.bytes(16).slice();
  return ok;
}

// ── the floor (§6.3) ──

export function decodeFloorAck(body) {
  const r = new Reader(body);
  return { holder: r.u8() === 1, position: r.u16() };
}

export function encodeFloorModerate(action, target) { return new Uint8Array([action, target]); }

// floor-granted and floor-withdrawn: the reason and the device that caused it.
export function decodeFloorNote(body) { return { reason: body[0], by: body[1] }; }

// ── control signals (§6.4) ──

export function encodeControl(signal, parameter = 0) {
  return new Writer().u8(signal).u8(0).u8(0).u8(0).u32(parameter).done();
}

// ── content on screen and clips (§6.5, §6.6) ──

export function encodePresent(id, page) { return new Writer().bytes(fromHex(id)).u32(page).done(); }

export function encodeClipPlay(id, loop) { return new Writer().bytes(fromHex(id)).u8(loop ? 1 : 0).done(); }

export function encodeClipSeek(positionMs) { return new Writer().u32(positionMs).done(); }

// ── pictures: screenshot and page preview (§6.8, §6.9), answered with screenshot-data ──

// jpeg: a JPEG is welcome where it is smaller than the PNG (flags bit 0, §6.8).
export function encodeScreenshotRequest(maxWidth, maxHeight, jpeg = false) {
  if (jpeg) return new Writer().u16(maxWidth).u16(maxHeight).u8(1).done();
  return maxWidth || maxHeight ? new Writer().u16(maxWidth).u16(maxHeight).done() : new Uint8Array(0);
}

export function encodePagePreview(id, page, maxWidth, maxHeight) {
  return new Writer().bytes(fromHex(id)).u32(page).u16(maxWidth).u16(maxHeight).done();
}

export function decodeScreenshotData(body) {
  const r = new Reader(body);
  const width = r.u32(), height = r.u32(), total = r.u32(), offset = r.u32();
  return { width, height, total, offset, data: r.rest().slice() };
}

// ── uploads (§12) ──

export function encodeUploadBegin(id, size, proof, nameBytes) {
  return new Writer().bytes(id).u64(size).u8(0).bytes(proof).u16(nameBytes.length).bytes(nameBytes).done();
}

export function decodeUploadReady(body) {
  const r = new Reader(body);
  r.bytes(32);
  const status = r.u8(), offset = r.u64(), kind = r.u8(), pages = r.u32(), durationMs = r.u32();
  return { status, offset, kind, pages, durationMs };
}

export function encodeUploadChunk(id, offset, data) { return new Writer().bytes(id).u64(offset).bytes(data).done(); }

export function decodeUploadProgress(body) {
  const r = new Reader(body);
  r.bytes(32);
  return r.u64();
}

// conversion-progress (0x3E, §30.3): where the conversion of an upload stands.
export function decodeConversionProgress(body) {
  const r = new Reader(body);
  r.bytes(32);
  const stage = r.u8(), ahead = r.u8(), done = r.u32(), total = r.u32(), elapsedMs = r.u32(), budgetMs = r.u32();
  const format = String.fromCharCode(...r.bytes(r.u8()));
  return { stage, ahead, done, total, elapsedMs, budgetMs, format };
}

export function decodeUploadStored(body) {
  const r = new Reader(body);
  r.bytes(32);
  const kind = r.u8();
  r.u64();
  return { kind, pages: r.u32(), durationMs: r.u32() };
}
