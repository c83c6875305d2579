// core/share-wire.js: live sharing's bodies (§29).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CODEC, SOURCE, PLACEMENT, encodeShareBegin, encodeShareFrame, decodeShareReady, decodeShareAck, decodeShareAdvice,
  encodeShareAudio, encodeShareModerate, encodeSharePicture, decodeShareKeyRequest,
} from '../../Sources/LecternService/Web/core/share-wire.js';
import { Writer } from '../../Sources/LecternService/Web/core/wire.js';

test('share-begin: codec, source, placement, size, frame rate, bit rate', () => {
  const b = encodeShareBegin({ codec: CODEC.vp8, source: SOURCE.screen, placement: PLACEMENT.beside, width: 1920, height: 1080, frameRate: 30, bitrate: 2_500_000 });
  assert.deepEqual([...b], [2, 1, 1, 0, 0x07, 0x80, 0x04, 0x38, 0, 30, 0x00, 0x26, 0x25, 0xA0]);
});

test('share-frame and share-audio: flags, sequence, a 64-bit capture time, the data', () => {
  const f = encodeShareFrame(true, 7, 2 ** 33 + 3, Uint8Array.of(9, 9));
  assert.deepEqual([...f], [1, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 2, 0, 0, 0, 3, 9, 9]);
  assert.equal(encodeShareFrame(false, 1, -5, new Uint8Array(0))[0], 0);
  assert.deepEqual([...encodeShareFrame(false, 1, -5, new Uint8Array(0)).subarray(8)], [0, 0, 0, 0, 0, 0, 0, 0], 'no negative time');
  const a = encodeShareAudio(2, 1, 20000, Uint8Array.of(5));
  assert.deepEqual([...a.subarray(0, 2)], [1, 2]);
  assert.equal(a.length, 17);
});

test('the appliance\'s answers', () => {
  assert.deepEqual(decodeShareReady(new Writer().u8(1).u8(0xFF).u16(24).u32(1e6).done()), { live: true, pane: null, frameRate: 24, bitrate: 1e6 });
  assert.deepEqual(decodeShareReady(new Writer().u8(0).u8(2).u16(24).u32(1e6).done()).pane, 2);
  assert.deepEqual(decodeShareAck(new Writer().u32(9).u32(8).u32(1).u32(4096).done()), { sequence: 9, decoded: 8, dropped: 1, queuedBytes: 4096 });
  assert.deepEqual(decodeShareAdvice(new Writer().u32(5e5).u16(15).u8(2).done()), { bitrate: 5e5, frameRate: 15, reason: 2 });
  assert.equal(decodeShareKeyRequest(new Writer().u32(42).done()), 42);
  assert.throws(() => decodeShareAck(Uint8Array.of(1, 2)), /shorter/);
});

test('share-moderate and share-picture', () => {
  assert.deepEqual([...encodeShareModerate(4, 2)], [4, 2]);
  assert.deepEqual([...encodeSharePicture(4, 320, 180)], [4, 0, 1, 64, 0, 180]);
});
