// The Lectern web remote: the wire protocol of docs/protocol.md spoken over the
// WebSocket at /ws (one protocol frame per binary message), and the presenter's and
// moderator's page around it. One file, no build step, nothing loaded from anywhere else.
//
// Sections: bytes · SHA-256, HMAC and PBKDF2 (in JavaScript: WebCrypto exists only on
// https:// and localhost, and the appliance is plain http:// on the room's Wi-Fi) · frames
// and messages · the connection · the page.
'use strict';

(function () {

// ─── bytes ────────────────────────────────────────────────────────────────────────────

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

function hex(bytes) {
  let s = '';
  for (const b of bytes) s += (b < 16 ? '0' : '') + b.toString(16);
  return s;
}

function fromHex(s) {
  const out = new Uint8Array(s.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.substr(2 * i, 2), 16);
  return out;
}

function toBase64(bytes) {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function fromBase64(s) {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function concatBytes(parts) {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

function sameBytes(a, b) {
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const nextTick = () => new Promise((resolve) => setTimeout(resolve, 0));

// ─── SHA-256, HMAC-SHA256, PBKDF2-HMAC-SHA256 ─────────────────────────────────────────
// FIPS 180-4 and RFC 2104 / RFC 8018. Used for file hashing (streamed, any size) and, when
// the page is not a secure context (no crypto.subtle), for the passcode key too.

const K256 = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const IV256 = new Int32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

// One compression: H (8 words) updated in place from the block in W[0..15]; W[16..63]
// are scratch (W[0..15] are left as they were).
function compress(H, W) {
  for (let t = 16; t < 64; t++) {
    const a = W[t - 15], b = W[t - 2];
    const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
    const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
    W[t] = (W[t - 16] + s0 + W[t - 7] + s1) | 0;
  }
  let a = H[0], b = H[1], c = H[2], d = H[3], e = H[4], f = H[5], g = H[6], h = H[7];
  for (let t = 0; t < 64; t++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K256[t] + W[t]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
  }
  H[0] = (H[0] + a) | 0; H[1] = (H[1] + b) | 0; H[2] = (H[2] + c) | 0; H[3] = (H[3] + d) | 0;
  H[4] = (H[4] + e) | 0; H[5] = (H[5] + f) | 0; H[6] = (H[6] + g) | 0; H[7] = (H[7] + h) | 0;
}

function wordsToBytes(H) {
  const out = new Uint8Array(4 * H.length);
  for (let i = 0; i < H.length; i++) {
    out[4 * i] = H[i] >>> 24; out[4 * i + 1] = H[i] >>> 16; out[4 * i + 2] = H[i] >>> 8; out[4 * i + 3] = H[i];
  }
  return out;
}

class Sha256 {
  constructor() {
    this.H = Int32Array.from(IV256);
    this.W = new Int32Array(64);
    this.buf = new Uint8Array(64);
    this.bufLen = 0;
    this.total = 0;
  }

  block(bytes, o) {
    const W = this.W;
    for (let t = 0; t < 16; t++, o += 4) W[t] = (bytes[o] << 24) | (bytes[o + 1] << 16) | (bytes[o + 2] << 8) | bytes[o + 3];
    compress(this.H, W);
  }

  update(data) {
    const n = data.length;
    let i = 0;
    this.total += n;
    if (this.bufLen > 0) {
      const take = Math.min(64 - this.bufLen, n);
      this.buf.set(data.subarray(0, take), this.bufLen);
      this.bufLen += take;
      i = take;
      if (this.bufLen < 64) return this;
      this.block(this.buf, 0);
      this.bufLen = 0;
    }
    for (; i + 64 <= n; i += 64) this.block(data, i);
    if (i < n) { this.buf.set(data.subarray(i), 0); this.bufLen = n - i; }
    return this;
  }

  digest() {
    const bits = this.total * 8;
    const pad = new Uint8Array(((this.bufLen < 56) ? 56 : 120) - this.bufLen + 8);
    pad[0] = 0x80;
    const hi = Math.floor(bits / 0x100000000), lo = bits >>> 0;
    const p = pad.length - 8;
    pad[p] = hi >>> 24; pad[p + 1] = hi >>> 16; pad[p + 2] = hi >>> 8; pad[p + 3] = hi;
    pad[p + 4] = lo >>> 24; pad[p + 5] = lo >>> 16; pad[p + 6] = lo >>> 8; pad[p + 7] = lo;
    const total = this.total;
    this.update(pad);
    this.total = total;
    return wordsToBytes(this.H);
  }
}

function sha256(bytes) { return new Sha256().update(bytes).digest(); }

class HmacSha256 {
  constructor(key) {
    if (key.length > 64) key = sha256(key);
    const ipad = new Uint8Array(64).fill(0x36), opad = new Uint8Array(64).fill(0x5c);
    for (let i = 0; i < key.length; i++) { ipad[i] ^= key[i]; opad[i] ^= key[i]; }
    this.inner = new Sha256().update(ipad);
    this.opad = opad;
  }
  update(data) { this.inner.update(data); return this; }
  digest() { return new Sha256().update(this.opad).update(this.inner.digest()).digest(); }
}

function hmacSha256(key, data) { return new HmacSha256(key).update(data).digest(); }

// PBKDF2-HMAC-SHA256 with a 32-byte output (one block). Each round is two compressions
// from the precomputed inner and outer pad states. Yields to the page every few thousand
// rounds so the page stays alive (and keeps answering pings) on a slow phone.
async function pbkdf2Sha256(password, salt, iterations) {
  const key = password.length > 64 ? sha256(password) : password;
  const pads = [0x36, 0x5c].map((x) => {
    const block = new Uint8Array(64).fill(x);
    for (let i = 0; i < key.length; i++) block[i] ^= key[i];
    const s = new Sha256();
    s.block(block, 0);
    return s.H;
  });
  const istate = pads[0], ostate = pads[1];
  const u1 = new HmacSha256(password).update(salt).update(new Uint8Array([0, 0, 0, 1])).digest();
  const u = new Int32Array(8);
  for (let i = 0; i < 8; i++) u[i] = (u1[4 * i] << 24) | (u1[4 * i + 1] << 16) | (u1[4 * i + 2] << 8) | u1[4 * i + 3];
  const T = Int32Array.from(u);
  const W = new Int32Array(64), S = new Int32Array(8);
  // The block after a 64-byte key block and 32 bytes of message: 0x80, zeros, 768 bits.
  W[8] = 0x80000000 | 0; W[15] = (64 + 32) * 8;
  for (let i = 1; i < iterations; i++) {
    for (let j = 0; j < 8; j++) W[j] = u[j];
    S.set(istate); compress(S, W);
    for (let j = 0; j < 8; j++) W[j] = S[j];
    S.set(ostate); compress(S, W);
    for (let j = 0; j < 8; j++) { u[j] = S[j]; T[j] ^= S[j]; }
    if ((i & 8191) === 0) await nextTick();
  }
  return wordsToBytes(T);
}

// The passcode key (protocol §7.1): WebCrypto when the page may use it, else the above.
async function deriveKey(passcode, salt, rounds) {
  const password = utf8.encode(passcode.normalize('NFC'));
  if (useWebCrypto()) {
    const k = await crypto.subtle.importKey('raw', password, 'PBKDF2', false, ['deriveBits']);
    const bits = await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations: rounds }, k, 256);
    return new Uint8Array(bits);
  }
  return pbkdf2Sha256(password, salt, rounds);
}

function useWebCrypto() {
  if (typeof location !== 'undefined' && /[?&]crypto=js\b/.test(location.search)) return false;
  return typeof crypto !== 'undefined' && !!crypto.subtle && (typeof isSecureContext === 'undefined' || isSecureContext);
}

// ─── frames and messages (docs/protocol.md §2, §5, §6) ────────────────────────────────

const C = {
  register: 0x01, registerOK: 0x02, registerFailed: 0x03, unregister: 0x04, unregisterOK: 0x05,
  floorRequest: 0x06, floorAck: 0x07, floorGranted: 0x08, floorWithdrawn: 0x09, floorRelease: 0x0A,
  floorModerate: 0x0B, control: 0x0C, controlOK: 0x0D, controlFailed: 0x0E,
  hello: 0x10, ping: 0x11, pong: 0x12, ok: 0x13, error: 0x14, state: 0x15, stateRequest: 0x16,
  clipPlay: 0x20, clipPlayOK: 0x21, clipPause: 0x22, clipPauseOK: 0x23, clipStop: 0x24, clipStopOK: 0x25,
  clipSeek: 0x26, clipSeekOK: 0x27, clipResume: 0x28, clipResumeOK: 0x29,
  present: 0x30, presentOK: 0x31, clear: 0x32,
  uploadBegin: 0x38, uploadReady: 0x39, uploadChunk: 0x3A, uploadFinish: 0x3B, uploadStored: 0x3C, uploadProgress: 0x3D,
  screenshotRequest: 0x50, screenshotData: 0x51, pagePreview: 0x52,
};
const FAILURES = new Set([C.registerFailed, C.controlFailed, C.error]);
const MAX_FRAME = 0x110000;          // 1 MiB + 64 KiB, header included
const MAX_CHUNK = 1 << 20;           // data in one upload-chunk
const PROTOCOL_VERSION = 1;
const ROLE = { presenter: 1, moderator: 2 };
const SIGNAL = { next: 0x01, prev: 0x02, goto: 0x03, blank: 0xF0, unblank: 0xF1, handOver: 0xFD, takeBack: 0xFE, giveBack: 0xFF };
const MODERATE = { grant: 1, withdraw: 2, reject: 3, kick: 4, dndOn: 5, dndOff: 6 };
const ERR = { wrongPasscode: 0x0101, tooManyAttempts: 0x0102, kicked: 0x0106, replaced: 0x0107, timedOut: 0x0009,
              unsupportedVersion: 0x0008, shuttingDown: 0x0603 };

class Writer {
  constructor() { this.parts = []; }
  u8(v) { this.parts.push(new Uint8Array([v & 255])); return this; }
  u16(v) { this.parts.push(new Uint8Array([(v >>> 8) & 255, v & 255])); return this; }
  u32(v) { const b = new Uint8Array(4); new DataView(b.buffer).setUint32(0, v >>> 0); this.parts.push(b); return this; }
  u64(v) { const b = new Uint8Array(8); const d = new DataView(b.buffer); d.setUint32(0, Math.floor(v / 0x100000000)); d.setUint32(4, v >>> 0); this.parts.push(b); return this; }
  bytes(b) { this.parts.push(b); return this; }
  string16(s) { const b = utf8.encode(s); return this.u16(b.length).bytes(b); }
  done() { return concatBytes(this.parts); }
}

class Reader {
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

function encodeFrame(command, device, tag, body) {
  const f = new Uint8Array(8 + body.length);
  const v = new DataView(f.buffer);
  v.setUint8(0, command); v.setUint8(1, device); v.setUint16(2, tag); v.setUint32(4, f.length);
  f.set(body, 8);
  return f;
}

// A failure reply (§6.1 error body): the message is what people see.
class ServerError extends Error {
  constructor(code, closes, detail, message) {
    super(message);
    this.code = code; this.closes = closes; this.detail = detail;
  }
}

function decodeError(body) {
  const r = new Reader(body);
  const code = r.u16(), flags = r.u8();
  r.u8();
  const detail = r.u64();
  return new ServerError(code, (flags & 1) !== 0, detail, r.string16());
}

function decodeHello(body) {
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

// The exact bytes of §7.2 that the proof is the HMAC of.
function registerMAC(challenge, role, nameBytes, token) {
  return new Writer().bytes(utf8.encode('lectern-register-v1')).bytes(challenge).u8(role)
    .u16(nameBytes.length).bytes(nameBytes).u8(token ? token.length : 0).bytes(token || new Uint8Array(0)).done();
}

async function registerProof(key, challenge, role, nameBytes, token) {
  const input = registerMAC(challenge, role, nameBytes, token);
  if (useWebCrypto()) {
    const k = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    return new Uint8Array(await crypto.subtle.sign('HMAC', k, input));
  }
  return hmacSha256(key, input);
}

// ─── the connection ───────────────────────────────────────────────────────────────────

class ConnectionLost extends Error {}

// One WebSocket = one protocol session. Requests are matched to replies by tag; pings
// are answered at once; unsolicited frames go to the handlers.
class Link {
  constructor(url, handlers) {
    this.url = url;
    this.handlers = handlers;   // onState, onFloorNote, onServerError, onClose
    this.device = 0xFF;
    this.nextTag = 0;
    this.pending = new Map();   // tag → { resolve, reject, pieces?, onChunkError? }
    this.progress = new Map();  // upload-begin tag → (stored) => void
    this.inbox = [];
    this.inboxBytes = 0;
    this.closed = false;
    this.lastHeard = Date.now();
  }

  open() {
    return new Promise((resolve, reject) => {
      let ws;
      try { ws = new WebSocket(this.url); } catch (e) { reject(new ConnectionLost("Can't reach the appliance.")); return; }
      ws.binaryType = 'arraybuffer';
      this.ws = ws;
      this.helloWaiter = { resolve, reject };
      ws.onmessage = (ev) => this.received(ev.data);
      ws.onclose = () => this.gone();
      ws.onerror = () => {};
    });
  }

  gone() {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.watchdog);
    // A fatal error the appliance sent before closing says why better than "lost".
    const err = this.fatal || new ConnectionLost('The connection to the appliance was lost.');
    if (this.helloWaiter) { this.helloWaiter.reject(this.fatal || new ConnectionLost("Can't reach the appliance.")); this.helloWaiter = null; }
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.progress.clear();
    if (this.handlers.onClose) this.handlers.onClose(this);
  }

  close() {
    try { this.ws.close(); } catch (e) { /* already closed */ }
    this.gone();
  }

  get isOpen() { return !this.closed && this.ws && this.ws.readyState === WebSocket.OPEN; }

  received(data) {
    if (this.closed) return;
    this.lastHeard = Date.now();
    const bytes = new Uint8Array(data);
    this.inbox.push(bytes);
    this.inboxBytes += bytes.length;
    for (;;) {
      if (this.inboxBytes < 8) return;
      if (this.inbox[0].length < 8) this.inbox = [concatBytes(this.inbox)];
      const head = this.inbox[0];
      const length = new DataView(head.buffer, head.byteOffset, 8).getUint32(4);
      if (length < 8 || length > MAX_FRAME) { this.close(); return; }
      if (this.inboxBytes < length) return;
      if (head.length < length) this.inbox = [concatBytes(this.inbox)];
      const all = this.inbox[0];
      const frame = all.subarray(0, length);
      if (all.length > length) this.inbox[0] = all.subarray(length); else this.inbox.shift();
      this.inboxBytes -= length;
      try { this.dispatch(frame[0], frame[1], (frame[2] << 8) | frame[3], frame.subarray(8)); } catch (e) {
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
    do { this.nextTag = this.nextTag >= 0xFFFF ? 1 : this.nextTag + 1; } while (this.pending.has(this.nextTag) || this.progress.has(this.nextTag));
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
      const r = new Reader(body);
      r.bytes(32);
      this.progress.get(tag)(r.u64());
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
      if (command === C.screenshotData) {
        const r = new Reader(body);
        const width = r.u32(), height = r.u32(), total = r.u32(), offset = r.u32();
        const data = r.rest().slice();
        p.pieces = p.pieces || [];
        p.pieces.push(data);
        p.got = (p.got || 0) + data.length;
        if (offset + data.length >= total) {
          this.pending.delete(tag);
          p.resolve({ width, height, png: new Blob(p.pieces, { type: 'image/png' }) });
        }
        return;
      }
      this.pending.delete(tag);
      p.resolve({ command, body });
      return;
    }
    switch (command) {
      case C.state:
        this.handlers.onState(JSON.parse(utf8Decoder.decode(body)));
        break;
      case C.floorGranted:
      case C.floorWithdrawn:
        this.handlers.onFloorNote(command === C.floorGranted, body[0], body[1]);
        break;
      case C.error:
      case C.registerFailed:
      case C.controlFailed: {
        const e = decodeError(body);
        if (e.closes) this.fatal = e;
        this.handlers.onServerError(e);
        break;
      }
      default:
        break;
    }
  }

  // ── requests ──

  async register(role, name, key, token) {
    const nameBytes = utf8.encode(name);
    const h = this.hello;
    const proof = key ? await registerProof(key, h.challenge, role, nameBytes, token) : new Uint8Array(32);
    const body = new Writer().u16(PROTOCOL_VERSION).u8(role).bytes(proof)
      .u8(token ? token.length : 0).bytes(token || new Uint8Array(0)).u16(nameBytes.length).bytes(nameBytes).done();
    const reply = await this.request(C.register, body);
    const r = new Reader(reply.body);
    const ok = { id: r.u8(), role: r.u8() };
    const flags = r.u8();
    ok.resumed = (flags & 1) !== 0; ok.floorRestored = (flags & 2) !== 0;
    ok.token = r.bytes(16).slice();
    this.device = ok.id;
    return ok;
  }

  control(signal, parameter = 0) {
    return this.request(C.control, new Writer().u8(signal).u8(0).u8(0).u8(0).u32(parameter).done());
  }

  moderate(action, target) { return this.request(C.floorModerate, new Uint8Array([action, target])); }

  async requestFloor() {
    const reply = await this.request(C.floorRequest, new Uint8Array(0));
    const r = new Reader(reply.body);
    return { holder: r.u8() === 1, position: r.u16() };
  }

  present(id, page = 1) { return this.request(C.present, new Writer().bytes(fromHex(id)).u32(page).done()); }

  // The output's frame; scaled to at most maxWidth × maxHeight when given (§6.8).
  screenshot(maxWidth = 0, maxHeight = 0) {
    const body = maxWidth || maxHeight ? new Writer().u16(maxWidth).u16(maxHeight).done() : new Uint8Array(0);
    return this.image(C.screenshotRequest, body);
  }

  // A page of an upload as the output would show it, at most maxWidth × maxHeight (§6.9).
  pagePreview(id, page, maxWidth, maxHeight = 0) {
    return this.image(C.pagePreview, new Writer().bytes(fromHex(id)).u32(page).u16(maxWidth).u16(maxHeight).done());
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

  // Uploads a File (§12): hash and possession proof in one pass, begin, chunks from the
  // offset the appliance gives, finish. report(phase, done, total) drives the progress bar.
  async upload(file, report) {
    const size = file.size;
    const hasher = new Sha256();
    const possession = new HmacSha256(this.hello.challenge).update(utf8.encode('lectern-possession-v1'));
    const step = 4 << 20;
    for (let o = 0; o < size; o += step) {
      const part = new Uint8Array(await file.slice(o, Math.min(size, o + step)).arrayBuffer());
      hasher.update(part); possession.update(part);
      report('hash', Math.min(size, o + step), size);
      if (this.closed) throw new ConnectionLost('The connection to the appliance was lost.');
    }
    const id = hasher.digest(), proof = possession.digest();
    const nameBytes = utf8.encode(uploadName(file.name));
    const begin = new Writer().bytes(id).u64(size).u8(0).bytes(proof).u16(nameBytes.length).bytes(nameBytes).done();

    const beginTag = this.newTag();
    const ready = await new Promise((resolve, reject) => {
      this.pending.set(beginTag, { resolve, reject });
      this.send(C.uploadBegin, begin, beginTag);
    });
    let r = new Reader(ready.body);
    r.bytes(32);
    const status = r.u8(), offset = r.u64(), kind = r.u8(), pages = r.u32(), durationMs = r.u32();
    if (status === 1) {
      report('send', size, size);
      return { id: hex(id), name: uploadName(file.name), kind: kind === 2 ? 'clip' : 'pdf', pages, durationMs, size };
    }

    let confirmed = offset;
    this.progress.set(beginTag, (stored) => { confirmed = Math.max(confirmed, stored); });
    let chunkError = null;
    const chunkTags = [];
    try {
      let sent = offset;
      report('send', offset, size);
      while (sent < size) {
        if (chunkError) throw chunkError;
        if (this.closed) throw new ConnectionLost('The connection to the appliance was lost.');
        // Keep at most a few MiB queued in the browser: the progress bar then tells the
        // truth, and a dropped connection loses little.
        if (this.ws.bufferedAmount > (4 << 20)) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          report('send', Math.max(confirmed, sent - this.ws.bufferedAmount), size);
          continue;
        }
        const end = Math.min(size, sent + MAX_CHUNK);
        const data = new Uint8Array(await file.slice(sent, end).arrayBuffer());
        const body = new Writer().bytes(id).u64(sent).bytes(data).done();
        const tag = this.newTag();
        // No reply on success; an error with this tag stops the upload.
        this.pending.set(tag, { resolve() {}, reject() {}, onChunkError: (e) => { chunkError = chunkError || e; } });
        chunkTags.push(tag);
        this.send(C.uploadChunk, body, tag);
        sent = end;
        report('send', Math.max(confirmed, sent - this.ws.bufferedAmount), size);
      }
      while (this.ws.bufferedAmount > 0 && !this.closed && !chunkError) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        report('send', Math.max(confirmed, size - this.ws.bufferedAmount), size);
      }
      if (chunkError) throw chunkError;
      report('verify', size, size);
      let stored;
      try { stored = await this.request(C.uploadFinish, id); } catch (e) { throw chunkError || e; }
      if (chunkError) throw chunkError;
      r = new Reader(stored.body);
      r.bytes(32);
      const k = r.u8();
      r.u64();
      return { id: hex(id), name: uploadName(file.name), kind: k === 2 ? 'clip' : 'pdf', pages: r.u32(), durationMs: r.u32(), size };
    } finally {
      this.progress.delete(beginTag);
      for (const t of chunkTags) this.pending.delete(t);
    }
  }
}

// A file name the appliance accepts (§2.4): no control characters, no '/', 1–255 bytes.
function uploadName(name) {
  let s = (name || '').replace(/[\u0000-\u001f\u007f-\u009f]/g, '').replace(/\//g, '_').trim();
  if (!s) s = 'upload';
  while (utf8.encode(s).length > 255) s = Array.from(s).slice(0, -1).join('');
  return s;
}

// ─── the page ─────────────────────────────────────────────────────────────────────────

const $ = (id) => document.getElementById(id);
const SESSION_KEY = 'lectern.session';
const NAME_KEY = 'lectern.name';

const app = {
  phase: 'connecting',     // connecting · login · joining · in · reconnecting · gone
  link: null,
  hello: null,
  session: null,           // { name, role, key, salt, rounds, token, id }
  state: null,
  stateAt: 0,
  files: [],               // uploads this session owns: { id, name, kind, pages, durationMs }
  next: { key: '', done: '', serial: 0, url: null, png: null, width: 0, height: 0 },   // the next-slide thumbnail; done: the key last answered
  previewBusy: false,
  previewWidth: 0,         // the width asked for the live picture, in device pixels
  previewAgain: false,
  previewURL: null,
  retry: 0,
  uploading: false,
  armed: new Map(),        // kick buttons waiting for their second tap
  waiters: [],
};

function wsURL() {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return scheme + '//' + location.host + '/ws';
}

function saveSession() {
  const s = app.session;
  if (!s) { sessionStorage.removeItem(SESSION_KEY); return; }
  sessionStorage.setItem(SESSION_KEY, JSON.stringify({
    name: s.name, role: s.role, key: toBase64(s.key), salt: toBase64(s.salt), rounds: s.rounds,
    token: s.token ? toBase64(s.token) : null, files: app.files,
  }));
}

function loadSession() {
  try {
    const j = JSON.parse(sessionStorage.getItem(SESSION_KEY) || 'null');
    if (!j || !j.key) return null;
    return { name: j.name, role: j.role, key: fromBase64(j.key), salt: fromBase64(j.salt), rounds: j.rounds,
             token: j.token ? fromBase64(j.token) : null, files: Array.isArray(j.files) ? j.files : [] };
  } catch (e) { return null; }
}

// ── messages for people ──

let toastTimer = null;
function toast(text, kind = 'error') {
  const t = $('toast');
  t.textContent = text;
  t.className = 'toast show toast-' + kind;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.className = 'toast'; }, kind === 'error' ? 6000 : 3500);
}

function describe(e) {
  if (e instanceof ServerError || e instanceof ConnectionLost) return e.message;
  return 'Something went wrong in this page: ' + (e && e.message ? e.message : e);
}

// Runs a request from a button; any failure is shown in words.
async function act(fn) {
  try { return await fn(); } catch (e) { toast(describe(e)); return undefined; }
}

function banner(text) {
  const b = $('banner');
  b.textContent = text || '';
  b.hidden = !text;
}

// ── phases ──

function show(phase) {
  app.phase = phase;
  document.body.dataset.phase = phase;
  $('login-view').hidden = !(phase === 'login' || phase === 'joining' || phase === 'gone' || phase === 'connecting');
  $('room-view').hidden = !(phase === 'in' || phase === 'reconnecting');
  $('leave').hidden = !(phase === 'in' || phase === 'reconnecting');
  $('join').disabled = phase === 'joining' || phase === 'connecting';
  $('join').textContent = phase === 'joining' ? 'Joining…' : phase === 'connecting' ? 'Connecting…' : 'Join';
  if (phase === 'in') banner('');
  for (const w of app.waiters.splice(0)) w();
}

async function connect() {
  const link = new Link(wsURL(), {
    onState: onState,
    onFloorNote: onFloorNote,
    onServerError: (e) => onServerError(link, e),
    onClose: () => onClosed(link),
  });
  app.link = link;
  const hello = await link.open();
  app.hello = hello;
  $('room-name').textContent = hello.room;
  $('login-room').textContent = hello.room;
  document.title = hello.room + ' · Lectern';
  $('role-moderator-label').hidden = !hello.moderator;
  return link;
}

function onServerError(link, e) {
  if (link !== app.link) return;
  if (e.code === ERR.kicked || e.code === ERR.replaced) {
    // Not to be undone by reconnecting: start over from the form.
    app.session = null; app.files = []; saveSession();
    app.goneMessage = e.message;
    return;
  }
  if (e.code === ERR.timedOut && app.phase !== 'in') return;   // an idle login page: reconnect on Join
  if (app.phase === 'in' || e.closes) toast(e.message);
  if (e.closes) app.goneMessage = e.message;
}

function onClosed(link) {
  if (link !== app.link) return;
  if (app.phase === 'in' || app.phase === 'reconnecting') {
    if (!app.session) {   // kicked or replaced
      show('gone');
      $('login-error').textContent = app.goneMessage || 'The appliance closed the connection.';
      app.goneMessage = null;
      renderAll();
      return;
    }
    show('reconnecting');
    banner((app.goneMessage ? app.goneMessage + ' ' : '') + 'Connection lost — reconnecting…');
    app.goneMessage = null;
    scheduleReconnect();
  }
}

function scheduleReconnect() {
  const delays = [500, 1000, 2000, 4000];
  const d = delays[Math.min(app.retry, delays.length - 1)];
  app.retry++;
  setTimeout(resume, d);
}

// After a drop (or a reload): a fresh connection, then register again with the key and
// the resume token kept for this tab.
async function resume() {
  const s = app.session;
  if (!s) { show('login'); return; }
  try {
    await connect();
  } catch (e) {
    if (app.phase === 'reconnecting') scheduleReconnect(); else showLoginWith('');
    return;
  }
  const params = s.role === ROLE.moderator ? app.hello.moderator : app.hello.presenter;
  if (!params || params.rounds !== s.rounds || !sameBytes(params.salt, s.salt)) {
    // The passcode changed on the appliance: the kept key is no good any more.
    app.session = null; saveSession();
    showLoginWith('The passcode of this room has changed: join again.');
    return;
  }
  try {
    const ok = await app.link.register(s.role, s.name, s.key, s.token);
    joined(ok, s);
  } catch (e) {
    if (e instanceof ConnectionLost) { if (app.session) { show('reconnecting'); scheduleReconnect(); } return; }
    app.session = null; saveSession();
    showLoginWith(describe(e));
  }
}

function showLoginWith(message) {
  show('login');
  $('login-error').textContent = message || '';
  if (app.session === null) { $('name').value = $('name').value || localStorage.getItem(NAME_KEY) || ''; }
}

function joined(ok, s) {
  app.retry = 0;
  app.session = { name: s.name, role: ok.role, key: s.key, salt: s.salt, rounds: s.rounds, token: ok.token, id: ok.id };
  if (!ok.resumed) app.files = [];   // uploads belong to the device's session (§12.3)
  saveSession();
  $('whoami-name').textContent = s.name;
  $('whoami-role').textContent = ok.role === ROLE.moderator ? 'moderator' : 'presenter';
  $('login-error').textContent = '';
  $('passcode').value = '';
  show('in');
  if (ok.floorRestored) toast('You have the floor again.', 'info');
  app.next.key = '';
  renderAll();
  refreshPreview();
  refreshNext();
}

async function join(ev) {
  ev.preventDefault();
  if (app.phase === 'joining') return;
  const name = $('name').value.trim();
  const passcode = $('passcode').value;
  const role = document.querySelector('input[name=role]:checked').value === 'moderator' ? ROLE.moderator : ROLE.presenter;
  $('login-error').textContent = '';
  localStorage.setItem(NAME_KEY, name);
  show('joining');
  try {
    if (!app.link || !app.link.isOpen) await connect();
    const params = role === ROLE.moderator ? app.hello.moderator : app.hello.presenter;
    // No parameters for a role: the room doesn't offer it; the appliance says so in words.
    const key = params ? await deriveKey(passcode, params.salt, params.rounds) : null;
    if (!app.link.isOpen) await connect();
    const p2 = role === ROLE.moderator ? app.hello.moderator : app.hello.presenter;
    const ok = await app.link.register(role, name, key, null);
    joined(ok, { name, role, key, salt: p2.salt, rounds: p2.rounds });
  } catch (e) {
    show('login');
    $('login-error').textContent = describe(e);
  }
}

async function leave() {
  const link = app.link;
  app.session = null; app.files = [];
  saveSession();
  show('login');
  if (link && link.isOpen) {
    try { await link.request(C.unregister, new Uint8Array(0)); } catch (e) { /* closing anyway */ }
  }
  renderAll();
}

// ── state ──

function onState(s) {
  if (app.state && s.revision < app.state.revision) return;
  const screenBefore = app.state ? JSON.stringify(app.state.screen) : '';
  app.state = s;
  app.stateAt = Date.now();
  renderAll();
  if (JSON.stringify(s.screen) !== screenBefore) refreshPreview();
  refreshNext();
}

// floor-granted and floor-withdrawn (§6.3), in words; `who` is the device that caused it.
const GRANTED = {
  1: () => 'You have the floor.',
  2: (who) => (who || 'The moderator') + ' gave you the floor.',
  3: (who) => (who || 'The holder') + ' lent you the floor: you drive the screen now.',
  4: () => 'The floor is back with you.',
  5: () => 'You have the floor again.',
  6: () => "It's your turn: you have the floor.",
};
const WITHDRAWN = {
  2: (who) => (who || 'The moderator') + ' took the floor from you.',
  3: (who) => (who || 'Someone else') + ' took the floor.',
  4: () => 'The moderator gave the floor to someone else.',
  5: () => 'The loan of the floor ended.',
  6: () => 'The floor you had on loan ended.',
  7: (who) => (who || 'The moderator') + ' turned down your request for the floor.',
};

function onFloorNote(granted, reason, by) {
  const f = (granted ? GRANTED : WITHDRAWN)[reason];
  const who = by ? deviceName(by) : null;
  toast(f ? f(who) : granted ? 'You have the floor.' : 'You lost the floor.', granted ? 'good' : 'info');
}

function deviceName(id) {
  const d = app.state && app.state.devices.find((x) => x.id === id);
  return d ? d.name : 'device ' + id;
}

function me() { return app.session ? app.session.id : null; }
function isModerator() { return !!app.session && app.session.role === ROLE.moderator; }

function renderAll() {
  renderScreen();
  renderFloor();
  renderFiles();
  renderModerator();
  renderClip();
}

function renderScreen() {
  const s = app.state;
  const screen = s ? s.screen : null;
  const label = $('page-label'), next = $('next-label');
  if (!screen || !screen.content) {
    label.textContent = 'Idle screen';
    next.textContent = '';
  } else if (screen.content.kind === 'pdf') {
    label.textContent = screen.page + ' / ' + screen.pageCount;
    next.textContent = screen.page < screen.pageCount ? 'Next: page ' + (screen.page + 1) : 'Last page';
    $('goto-page').max = String(screen.pageCount);
  } else {
    label.textContent = 'Clip';
    next.textContent = '';
  }
  label.classList.toggle('idle', !screen || !screen.content);
  $('screen-name').textContent = screen && screen.content ? screen.content.name : '';
  const blank = screen ? screen.blank : 'none';
  $('blank-black').setAttribute('aria-pressed', String(blank === 'black'));
  $('blank-white').setAttribute('aria-pressed', String(blank === 'white'));
  const badge = $('blank-badge');
  badge.hidden = blank === 'none';
  badge.textContent = blank === 'black' ? 'Blanked black' : blank === 'white' ? 'Blanked white' : '';
  const drive = canDrive();
  document.body.classList.toggle('can-drive', drive);
  $('drive-hint').hidden = drive || !app.state;
  if (s) {
    $('drive-hint').textContent = (s.floorMode === 'moderated' ? 'Ask for the floor' : 'Take the floor') + ' to drive the screen.';
  }
}

function canDrive() {
  const s = app.state;
  if (!s || !app.session) return false;
  return isModerator() || s.floor.driver === me();
}

function floorSummary() {
  const s = app.state, f = s.floor, id = me();
  const queuePos = f.queue.indexOf(id);
  const grace = () => {
    if (f.graceRemainingMs == null) return '';
    const left = Math.max(0, Math.ceil((f.graceRemainingMs - (Date.now() - app.stateAt)) / 1000));
    return ' (reconnecting, ' + left + ' s left)';
  };
  if (f.holder === null) {
    if (queuePos >= 0) return 'You are number ' + (queuePos + 1) + ' in the queue.';
    return 'Nobody has the floor.';
  }
  if (f.delegate === id) return 'You have the floor, on loan from ' + deviceName(f.holder) + '.';
  if (f.holder === id) {
    return f.delegate !== null ? 'You have the floor, lent to ' + deviceName(f.delegate) + '.' : 'You have the floor.';
  }
  let text = deviceName(f.holder) + ' has the floor' + grace() + '.';
  if (f.delegate !== null) text += ' ' + deviceName(f.delegate) + ' drives it on loan.';
  if (queuePos >= 0) text += ' You are number ' + (queuePos + 1) + ' in the queue.';
  return text;
}

function renderFloor() {
  const s = app.state;
  if (!s || !app.session) return;
  const f = s.floor, id = me();
  const queued = f.queue.includes(id);
  const holding = f.holder === id, borrowing = f.delegate === id;
  $('floor-status').textContent = floorSummary();
  $('floor-status').className = 'floor-status' + (holding || borrowing ? ' mine' : queued ? ' queued' : '');
  const moderated = s.floorMode === 'moderated';
  const req = $('floor-request');
  req.hidden = holding || borrowing || queued;
  req.textContent = moderated && !isModerator() ? 'Ask for the floor' : 'Take the floor';
  const rel = $('floor-release');
  rel.hidden = !(holding || borrowing || queued);
  rel.textContent = borrowing ? 'Give the floor back' : queued ? 'Leave the queue' : 'Release the floor';
  $('floor-takeback').hidden = !(holding && f.delegate !== null);
  const dnd = f.doNotDisturb && !isModerator() && !holding && !borrowing;
  $('dnd-note').hidden = !dnd;
  $('mode-note').textContent = moderated ? 'Moderated room: the moderator decides who presents.' : 'Open room: whoever asks last has the floor.';
}

function renderFiles() {
  const list = $('file-list');
  list.replaceChildren();
  for (const f of app.files) {
    const li = document.createElement('li');
    li.className = 'file';
    const info = document.createElement('div');
    info.className = 'file-info';
    const name = document.createElement('span');
    name.className = 'file-name';
    name.textContent = f.name;
    const meta = document.createElement('span');
    meta.className = 'muted';
    meta.textContent = f.kind === 'pdf' ? f.pages + (f.pages === 1 ? ' page' : ' pages') : 'clip' + (f.durationMs ? ', ' + clock(f.durationMs) : '');
    info.append(name, meta);
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'primary';
    b.dataset.action = f.kind === 'pdf' ? 'present' : 'play';
    b.dataset.content = f.id;
    b.textContent = f.kind === 'pdf' ? 'Present' : 'Play';
    const onScreen = app.state && app.state.screen.content && app.state.screen.content.id === f.id;
    if (onScreen) {
      b.textContent = f.kind === 'pdf' ? 'On screen' : 'Playing';
      b.className = 'onscreen';
      b.disabled = true;
      li.classList.add('on-screen');
    }
    li.append(info, b);
    list.append(li);
  }
  $('files-empty').hidden = app.files.length > 0;
}

function renderModerator() {
  const card = $('mod-card');
  card.hidden = !isModerator();
  if (!isModerator() || !app.state) return;
  const s = app.state, f = s.floor, id = me();
  $('dnd').checked = f.doNotDisturb;

  const q = $('queue-list');
  q.replaceChildren();
  f.queue.forEach((d, i) => {
    const li = document.createElement('li');
    li.className = 'person';
    li.append(personLabel((i + 1) + '. ' + deviceName(d), ''));
    li.append(actions(d, [['grant', 'Grant', 'primary'], ['reject', 'Reject', '']]));
    q.append(li);
  });
  $('queue-empty').hidden = f.queue.length > 0;

  const list = $('device-list');
  list.replaceChildren();
  for (const d of s.devices) {
    const li = document.createElement('li');
    li.className = 'person';
    let status = d.role === 'moderator' ? 'moderator' : 'presenter';
    if (f.holder === d.id) status += f.delegate !== null ? ' · has the floor (lent)' : ' · has the floor';
    if (f.delegate === d.id) status += ' · drives on loan';
    const qp = f.queue.indexOf(d.id);
    if (qp >= 0) status += ' · queued #' + (qp + 1);
    if (!d.connected) status += ' · reconnecting';
    li.append(personLabel(d.name + (d.id === id ? ' (you)' : ''), status));
    const acts = [];
    if (f.holder !== d.id) acts.push(['grant', 'Grant', '']);
    if (f.holder === d.id || f.delegate === d.id) acts.push(['withdraw', 'Withdraw', '']);
    if (qp >= 0) acts.push(['reject', 'Reject', '']);
    if (d.id !== id) acts.push(['kick', 'Remove', 'danger']);
    li.append(actions(d.id, acts));
    li.dataset.device = String(d.id);
    list.append(li);
  }
  $('people-count').textContent = String(s.devices.length);
}

function personLabel(name, status) {
  const div = document.createElement('div');
  div.className = 'person-info';
  const n = document.createElement('span');
  n.className = 'person-name';
  n.textContent = name;
  div.append(n);
  if (status) {
    const st = document.createElement('span');
    st.className = 'muted';
    st.textContent = status;
    div.append(st);
  }
  return div;
}

function actions(device, list) {
  const div = document.createElement('div');
  div.className = 'actions';
  for (const [action, label, cls] of list) {
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.action = action;
    b.dataset.device = String(device);
    b.className = cls;
    b.textContent = app.armed.has('kick' + device) && action === 'kick' ? 'Sure? Remove' : label;
    div.append(b);
  }
  return div;
}

function clock(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  return Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0');
}

function renderClip() {
  const s = app.state;
  const clip = s && s.screen.clip;
  const haveClip = app.files.some((f) => f.kind === 'clip');
  $('clip-card').hidden = !clip && !haveClip;
  const bar = $('clip-position');
  if (clip) {
    bar.max = String(clip.durationMs);
    if (!bar.matches(':active')) bar.value = String(clipPosition());
    $('clip-time').textContent = clock(clipPosition()) + ' / ' + clock(clip.durationMs);
    $('clip-state').textContent = clip.state === 'playing' ? 'Playing' : clip.state === 'paused' ? 'Paused' : 'Stopped';
    $('clip-loop').checked = clip.loop;
  } else {
    bar.max = '1000'; bar.value = '0';
    $('clip-time').textContent = '0:00 / 0:00';
    $('clip-state').textContent = 'No clip on screen';
  }
}

function clipPosition() {
  const clip = app.state && app.state.screen.clip;
  if (!clip) return 0;
  const p = clip.state === 'playing' ? clip.positionMs + (Date.now() - app.stateAt) : clip.positionMs;
  return Math.min(clip.durationMs, p);
}

// ── the preview: what the output shows now (screenshot, §13) ──

async function refreshPreview() {
  if (app.phase !== 'in') return;
  if (app.previewBusy) { app.previewAgain = true; return; }
  app.previewBusy = true;
  try {
    // As many pixels as the box shows, not the output's 1920 × 1080: a phone on a busy
    // Wi-Fi gets its picture sooner.
    const box = $('preview');
    const dpr = window.devicePixelRatio || 1;
    app.previewWidth = Math.min(65535, Math.max(160, Math.round(box.clientWidth * dpr)));
    const shot = await app.link.screenshot(app.previewWidth, Math.min(65535, Math.max(90, Math.round(box.clientHeight * dpr))));
    const url = URL.createObjectURL(shot.png);
    const img = $('preview-img');
    img.onload = () => { if (app.previewURL && app.previewURL !== url) URL.revokeObjectURL(app.previewURL); app.previewURL = url; };
    img.src = url;
    img.hidden = false;
    $('preview').classList.add('has-image');
  } catch (e) {
    if (!(e instanceof ConnectionLost)) $('preview-note').textContent = describe(e);
  } finally {
    app.previewBusy = false;
    if (app.previewAgain) { app.previewAgain = false; refreshPreview(); }
  }
}

// ── the next slide: page n+1 of the deck on screen, as the output will show it (§6.9) ──

const NEXT_WIDTH = 480;   // sharp on a phone at 2× and a laptop column alike

async function refreshNext() {
  const screen = app.phase === 'in' && app.state ? app.state.screen : null;
  const pdf = screen && screen.content && screen.content.kind === 'pdf' && screen.page < screen.pageCount;
  const key = pdf ? screen.content.id + '#' + (screen.page + 1) : '';
  const next = app.next;
  if (key === next.key) return;
  next.key = key;
  const serial = ++next.serial;
  const box = $('upnext');
  if (!key) { box.hidden = true; return; }
  $('next-page').textContent = 'Page ' + (screen.page + 1) + ' of ' + screen.pageCount;
  try {
    const shot = await app.link.pagePreview(screen.content.id, screen.page + 1, NEXT_WIDTH);
    if (serial !== next.serial) return;   // the screen moved on meanwhile
    const url = URL.createObjectURL(shot.png);
    const img = $('next-img');
    img.onload = () => { if (next.url && next.url !== url) URL.revokeObjectURL(next.url); next.url = url; };
    img.src = url;
    next.png = shot.png; next.width = shot.width; next.height = shot.height;
    box.hidden = false;
    next.done = key;
  } catch (e) {
    // Only the deck's uploader and moderators see what comes next (§6.9); for everybody
    // else, and if the appliance can't render it, the page number below the picture says enough.
    if (serial === next.serial) { box.hidden = true; next.done = key; }
  }
}

// ── driving ──

const drive = {
  next: () => act(() => app.link.control(SIGNAL.next)),
  prev: () => act(() => app.link.control(SIGNAL.prev)),
  goto: (n) => act(() => app.link.control(SIGNAL.goto, n)),
  blank: (white) => {
    const current = app.state ? app.state.screen.blank : 'none';
    const want = white ? 'white' : 'black';
    return act(() => current === want ? app.link.control(SIGNAL.unblank) : app.link.control(SIGNAL.blank, white ? 1 : 0));
  },
  clear: () => act(() => app.link.request(C.clear, new Uint8Array(0))),
};

function onKey(e) {
  if (app.phase !== 'in' || e.altKey || e.ctrlKey || e.metaKey) return;
  const t = e.target;
  const tag = t && t.tagName;
  if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || (t && t.isContentEditable)) return;
  // Space on a focused button presses that button; leave it to the button.
  if (tag === 'BUTTON' && (e.key === ' ' || e.key === 'Enter')) return;
  const screen = app.state && app.state.screen;
  switch (e.key) {
    case 'ArrowRight': case 'ArrowDown': case 'PageDown': case ' ': case 'Spacebar':
      drive.next(); break;
    case 'ArrowLeft': case 'ArrowUp': case 'PageUp':
      drive.prev(); break;
    case 'b': case 'B': case '.':
      drive.blank(false); break;
    case 'w': case 'W': case ',':
      drive.blank(true); break;
    case 'Home':
      drive.goto(1); break;
    case 'End':
      if (screen && screen.pageCount) drive.goto(screen.pageCount); break;
    default:
      return;
  }
  e.preventDefault();
}

function setupSwipe() {
  const el = $('preview');
  let start = null;
  el.addEventListener('touchstart', (e) => {
    if (e.touches.length !== 1) { start = null; return; }
    start = { x: e.touches[0].clientX, y: e.touches[0].clientY, t: Date.now() };
  }, { passive: true });
  el.addEventListener('touchend', (e) => {
    if (!start || e.changedTouches.length !== 1) return;
    const dx = e.changedTouches[0].clientX - start.x, dy = e.changedTouches[0].clientY - start.y;
    start = null;
    if (Math.abs(dx) < 40 || Math.abs(dx) < 1.5 * Math.abs(dy)) return;
    if (dx < 0) drive.next(); else drive.prev();
  }, { passive: true });
}

// ── uploads ──

async function uploadFiles(files) {
  for (const file of files) await uploadOne(file);
}

async function uploadOne(file) {
  const bar = $('upload-bar'), text = $('upload-text');
  $('upload-box').hidden = false;
  app.uploading = true;
  const report = (phase, done, total) => {
    const pct = total ? Math.floor(100 * done / total) : 100;
    bar.value = total ? done / total : 1;
    text.textContent = (phase === 'hash' ? 'Reading ' : phase === 'verify' ? 'Checking ' : 'Uploading ') + file.name + ' · ' + pct + ' %';
  };
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        if (app.phase !== 'in') await whenIn(60000);
        const item = await app.link.upload(file, report);
        app.files = app.files.filter((f) => f.id !== item.id).concat([item]);
        saveSession();
        renderFiles(); renderClip();
        text.textContent = item.name + ' is ready.';
        bar.value = 1;
        break;
      } catch (e) {
        // A dropped connection: the appliance keeps what it got; continue once back.
        if (e instanceof ConnectionLost && attempt < 5 && app.session) { text.textContent = 'Connection lost — the upload continues when it is back…'; continue; }
        throw e;
      }
    }
  } catch (e) {
    text.textContent = file.name + ': ' + describe(e);
    bar.value = 0;
    toast(describe(e));
  } finally {
    app.uploading = false;
  }
}

function whenIn(timeoutMs) {
  return new Promise((resolve, reject) => {
    if (app.phase === 'in') { resolve(); return; }
    const timer = setTimeout(() => reject(new ConnectionLost('The connection to the appliance was lost.')), timeoutMs);
    const check = () => {
      if (app.phase === 'in') { clearTimeout(timer); resolve(); } else if (app.phase === 'login' || app.phase === 'gone') {
        clearTimeout(timer); reject(new ConnectionLost('You left the room.'));
      } else app.waiters.push(check);
    };
    app.waiters.push(check);
  });
}

// ── wiring ──

function onClick(e) {
  const b = e.target.closest('button');
  if (!b || b.disabled) return;
  const action = b.dataset.action;
  if (!action) return;
  const device = b.dataset.device ? Number(b.dataset.device) : 0;
  switch (action) {
    case 'present':
      act(() => app.link.present(b.dataset.content, 1)); break;
    case 'play':
      act(() => app.link.request(C.clipPlay, new Writer().bytes(fromHex(b.dataset.content)).u8($('clip-loop').checked ? 1 : 0).done())); break;
    case 'grant': act(() => app.link.moderate(MODERATE.grant, device)); break;
    case 'withdraw': act(() => app.link.moderate(MODERATE.withdraw, device)); break;
    case 'reject': act(() => app.link.moderate(MODERATE.reject, device)); break;
    case 'kick': {
      const k = 'kick' + device;
      if (app.armed.has(k)) {
        clearTimeout(app.armed.get(k)); app.armed.delete(k);
        act(() => app.link.moderate(MODERATE.kick, device));
      } else {
        app.armed.set(k, setTimeout(() => { app.armed.delete(k); renderModerator(); }, 4000));
        renderModerator();
      }
      break;
    }
    default: break;
  }
}

function init() {
  document.addEventListener('keydown', onKey);
  document.addEventListener('click', onClick);
  $('login-form').addEventListener('submit', join);
  $('leave').addEventListener('click', leave);
  $('next').addEventListener('click', drive.next);
  $('upnext').addEventListener('click', () => { if (canDrive()) drive.next(); });
  $('prev').addEventListener('click', drive.prev);
  $('blank-black').addEventListener('click', () => drive.blank(false));
  $('blank-white').addEventListener('click', () => drive.blank(true));
  $('clear-screen').addEventListener('click', drive.clear);
  $('goto-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const n = parseInt($('goto-page').value, 10);
    if (!(n >= 1)) { toast('Type a page number first.'); return; }
    drive.goto(n);
    $('goto-page').value = '';
    $('goto-page').blur();
  });
  $('floor-request').addEventListener('click', () => act(async () => {
    const ack = await app.link.requestFloor();
    if (!ack.holder) toast('You are number ' + ack.position + ' in the queue.', 'info');
  }));
  $('floor-release').addEventListener('click', () => act(() => app.link.request(C.floorRelease, new Uint8Array(0))));
  $('floor-takeback').addEventListener('click', () => act(() => app.link.control(SIGNAL.takeBack)));
  $('dnd').addEventListener('change', (e) => act(() => app.link.moderate(e.target.checked ? MODERATE.dndOn : MODERATE.dndOff, 0)).then(renderModerator));
  $('file-input').addEventListener('change', (e) => {
    const files = Array.from(e.target.files || []);
    e.target.value = '';
    if (files.length) uploadFiles(files);
  });
  $('clip-pause').addEventListener('click', () => act(() => app.link.request(C.clipPause, new Uint8Array(0))));
  $('clip-resume').addEventListener('click', () => act(() => app.link.request(C.clipResume, new Uint8Array(0))));
  $('clip-stop').addEventListener('click', () => act(() => app.link.request(C.clipStop, new Uint8Array(0))));
  $('clip-position').addEventListener('change', (e) => act(() => app.link.request(C.clipSeek, new Writer().u32(Number(e.target.value)).done())));
  setupSwipe();
  // Countdowns (grace period, clip position) tick locally between state pushes.
  setInterval(() => {
    if (app.phase !== 'in' || !app.state) return;
    if (app.state.floor.graceRemainingMs != null) renderFloor();
    if (app.state.screen.clip) renderClip();
  }, 500);

  $('name').value = localStorage.getItem(NAME_KEY) || '';
  const saved = loadSession();
  if (saved) {
    app.session = saved;
    app.files = saved.files;
    show('reconnecting');
    $('room-view').hidden = true;
    banner('Joining again…');
    resume();
  } else {
    show('connecting');
    connect().then(() => { if (app.phase === 'connecting') show('login'); }).catch((e) => {
      show('login');
      $('login-error').textContent = describe(e);
    });
  }
}

// For the browser tests and for people poking at the console.
const api = { render: renderAll, sha256, hmacSha256, pbkdf2Sha256, deriveKey, registerMAC, registerProof, hex, fromHex, utf8: (s) => utf8.encode(s), app };
if (typeof window !== 'undefined') window.Lectern = api;
if (typeof module !== 'undefined') module.exports = api;
if (typeof document !== 'undefined') {
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init); else init();
}

})();
