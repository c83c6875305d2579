// core/wire.js: fields, frames in a stream of any slicing, and message bodies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Writer, Reader, encodeFrame, splitFrame, Deframer, FramingError, decodeHello, decodeError, ServerError,
  encodeRegister, decodeRegisterOK, encodeControl, encodeUploadBegin, decodeUploadReady, encodeScreenshotRequest,
  decodeConversionProgress,
} from '../../Sources/LecternService/Web/core/wire.js';
import { MAX_FRAME } from '../../Sources/LecternService/Web/core/protocol.js';
import { helloBody, errorBody, CHALLENGE, SALT } from './appliance.mjs';

test('fields are big-endian, u64 beyond 32 bits included', () => {
  const b = new Writer().u8(0x1ff).u16(0x0102).u32(0xA0B0C0D0).u64(2 ** 40 + 5).string16('é').done();
  assert.deepEqual([...b.subarray(0, 7)], [0xff, 0x01, 0x02, 0xA0, 0xB0, 0xC0, 0xD0]);
  const r = new Reader(b);
  assert.equal(r.u8(), 0xff); assert.equal(r.u16(), 0x0102); assert.equal(r.u32(), 0xA0B0C0D0);
  assert.equal(r.u64(), 2 ** 40 + 5); assert.equal(r.string16(), 'é');
  assert.throws(() => r.u8(), /shorter than its fields/);
});

test('a frame: command, device, tag, length with the header, body', () => {
  const f = encodeFrame(0x0C, 3, 0x1234, Uint8Array.of(9, 8));
  assert.deepEqual([...f], [0x0C, 3, 0x12, 0x34, 0, 0, 0, 10, 9, 8]);
  const s = splitFrame(f);
  assert.equal(s.command, 0x0C); assert.equal(s.device, 3); assert.equal(s.tag, 0x1234);
  assert.deepEqual([...s.body], [9, 8]);
});

test('the deframer cuts frames out of messages of any size: byte by byte, several in one', () => {
  const frames = [encodeFrame(1, 255, 1, Uint8Array.of(1, 2, 3)), encodeFrame(2, 1, 2, new Uint8Array(0)), encodeFrame(3, 1, 3, new Uint8Array(5000).fill(7))];
  const stream = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
  let o = 0;
  for (const f of frames) { stream.set(f, o); o += f.length; }
  for (const step of [1, 3, 7, 4096, stream.length]) {
    const d = new Deframer();
    const out = [];
    for (let i = 0; i < stream.length; i += step) {
      d.push(stream.subarray(i, i + step));
      for (let f; (f = d.next());) out.push([...f]);
    }
    assert.deepEqual(out, frames.map((f) => [...f]), 'in pieces of ' + step);
  }
});

test('a length no frame can have is a framing error, before its bytes come', () => {
  const tooLong = new Uint8Array(8);
  new DataView(tooLong.buffer).setUint32(4, MAX_FRAME + 1);
  const d = new Deframer();
  d.push(tooLong);
  assert.throws(() => d.next(), FramingError);
  const tooShort = new Deframer();
  tooShort.push(Uint8Array.of(1, 1, 0, 1, 0, 0, 0, 7));
  assert.throws(() => tooShort.next(), FramingError);
  const largest = new Deframer();
  const head = new Uint8Array(8);
  new DataView(head.buffer).setUint32(4, MAX_FRAME);
  largest.push(head);
  assert.equal(largest.next(), null, 'the largest frame waits for its bytes');
});

test('hello: the challenge, the time-out, each role\'s salt and rounds, the room', () => {
  const h = decodeHello(helloBody({ timeoutMs: 6000, room: 'Salle 3' }));
  assert.equal(h.version, 1);
  assert.deepEqual(h.challenge, CHALLENGE);
  assert.equal(h.timeoutMs, 6000);
  assert.deepEqual(h.presenter, { rounds: 1000, salt: SALT });
  assert.equal(h.moderator, null);
  assert.equal(h.room, 'Salle 3');
  assert.throws(() => decodeHello(helloBody().subarray(0, 40)));
});

test('an error body: its code, whether it closes, its message', () => {
  const e = decodeError(errorBody(0x0101, 'Wrong passcode.', { closes: true, detail: 7 }));
  assert.ok(e instanceof ServerError);
  assert.equal(e.code, 0x0101); assert.equal(e.closes, true); assert.equal(e.detail, 7); assert.equal(e.message, 'Wrong passcode.');
});

test('register, register-ok, control, upload-begin and upload-ready', () => {
  const proof = new Uint8Array(32).fill(5), token = new Uint8Array(16).fill(6), name = new TextEncoder().encode('Ana');
  const reg = encodeRegister(1, proof, token, name);
  assert.deepEqual([...reg.subarray(0, 3)], [0, 1, 1]);
  assert.equal(reg.length, 2 + 1 + 32 + 1 + 16 + 2 + 3);
  assert.equal(encodeRegister(1, proof, null, name).length, 2 + 1 + 32 + 1 + 2 + 3);
  const ok = decodeRegisterOK(new Writer().u8(4).u8(1).u8(3).bytes(token).done());
  assert.deepEqual({ ...ok, token: [...ok.token] }, { id: 4, role: 1, resumed: true, floorRestored: true, token: [...token] });
  assert.deepEqual([...encodeControl(0x03, 12)], [3, 0, 0, 0, 0, 0, 0, 12]);
  const id = new Uint8Array(32).fill(1);
  assert.equal(encodeUploadBegin(id, 10, proof, name).length, 32 + 8 + 1 + 32 + 2 + 3);
  const ready = decodeUploadReady(new Writer().bytes(id).u8(0).u64(2 ** 33).u8(2).u32(0).u32(1500).done());
  assert.deepEqual(ready, { status: 0, offset: 2 ** 33, kind: 2, pages: 0, durationMs: 1500 });
});

test('screenshot-request: empty for the frame as it is, with a JPEG flag when one is welcome', () => {
  assert.equal(encodeScreenshotRequest(0, 0).length, 0);
  assert.deepEqual([...encodeScreenshotRequest(640, 0)], [2, 128, 0, 0]);
  assert.deepEqual([...encodeScreenshotRequest(640, 480, true)], [2, 128, 1, 224, 1]);
});

test('conversion-progress', () => {
  const body = new Writer().bytes(new Uint8Array(32)).u8(3).u8(0).u32(2).u32(30).u32(1000).u32(90000).u8(4).bytes(new TextEncoder().encode('pptx')).done();
  assert.deepEqual(decodeConversionProgress(body), { stage: 3, ahead: 0, done: 2, total: 30, elapsedMs: 1000, budgetMs: 90000, format: 'pptx' });
});
