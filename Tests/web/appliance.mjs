// A fake socket and the appliance's side of it, for the unit tests of Web/core/: the
// socket has the shape of the browser's WebSocket that Link uses (send, close, readyState,
// bufferedAmount, onmessage, onclose); the test plays the appliance by answering the
// frames the link sends with frames built here.

import { Writer, encodeFrame, Deframer, splitFrame } from '../../Sources/LecternService/Web/core/wire.js';
import { Link } from '../../Sources/LecternService/Web/core/link.js';
import { utf8 } from '../../Sources/LecternService/Web/core/bytes.js';

export class FakeSocket {
  static last = null;
  constructor(url) {
    this.url = url;
    this.readyState = 0;          // CONNECTING until the test accepts it
    this.bufferedAmount = 0;
    this.sent = [];               // every binary message the page sent
    this.frames = [];             // … cut into frames: { command, device, tag, body }
    this.inbox = new Deframer();
    this.onFrame = null;          // the appliance: called with each frame the page sends
    FakeSocket.last = this;
  }
  send(data) {
    if (this.readyState !== 1) throw new Error('send on a socket that is not open');
    const bytes = new Uint8Array(data);
    this.sent.push(bytes);
    this.inbox.push(bytes);
    for (let f; (f = this.inbox.next());) {
      const frame = splitFrame(f.slice());
      this.frames.push(frame);
      if (this.onFrame) this.onFrame(frame);
    }
  }
  close() {
    if (this.readyState === 3) return;
    this.readyState = 3;
    if (this.onclose) this.onclose({});
  }
  // ── the appliance's side ──
  accept() { this.readyState = 1; }
  // Delivers bytes as one WebSocket message (an ArrayBuffer, as binaryType 'arraybuffer' gives).
  deliver(bytes) {
    const copy = new Uint8Array(bytes);
    this.onmessage({ data: copy.buffer });
  }
  reply(command, tag, body = new Uint8Array(0), device = 1) { this.deliver(encodeFrame(command, device, tag, body)); }
}

export const CHALLENGE = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
export const SALT = Uint8Array.from({ length: 16 }, (_, i) => 0xA0 + i);

export function helloBody({ timeoutMs = 6000, room = 'Room 1', rounds = 1000 } = {}) {
  return new Writer().u16(1).bytes(CHALLENGE).u32(0x110000).u32(2000).u32(timeoutMs)
    .u32(rounds).u8(SALT.length).bytes(SALT)      // presenter
    .u32(0).u8(0)                                  // no moderator passcode
    .string16(room).string16('lecternd test').done();
}

export function errorBody(code, message, { closes = false, detail = 0 } = {}) {
  return new Writer().u16(code).u8(closes ? 1 : 0).u8(0).u64(detail).string16(message).done();
}

export function stateBody(state) { return utf8.encode(JSON.stringify(state)); }

// A link on a fake socket, opened: the hello answered. Resolves to { link, sock, seen }.
export async function openLink(handlers = {}, hello = {}) {
  const seen = { states: [], notes: [], errors: [], messages: [], closed: 0 };
  const link = new Link('ws://appliance.test/ws', {
    onState: (s) => seen.states.push(s),
    onFloorNote: (granted, reason, by) => seen.notes.push({ granted, reason, by }),
    onServerError: (e) => seen.errors.push(e),
    onMessage: (command, body) => seen.messages.push({ command, body }),
    onClose: () => { seen.closed++; },
    ...handlers,
  }, { WebSocket: FakeSocket });
  const opened = link.open();
  const sock = FakeSocket.last;
  sock.accept();
  sock.reply(0x10, 0, helloBody(hello), 0xFF);
  await opened;
  return { link, sock, seen };
}
