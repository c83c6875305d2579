// core/bytes.js: hex, base64, joining and comparing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hex, fromHex, toBase64, fromBase64, concatBytes, sameBytes, utf8, utf8Decoder } from '../../Sources/LecternService/Web/core/bytes.js';

test('hex both ways, lower case, two digits a byte', () => {
  const b = Uint8Array.from([0, 1, 0x0f, 0x10, 0xab, 0xff]);
  assert.equal(hex(b), '00010f10abff');
  assert.deepEqual(fromHex('00010f10abff'), b);
  assert.deepEqual(fromHex(''), new Uint8Array(0));
  assert.equal(hex(new Uint8Array(0)), '');
});

test('base64 both ways, as Node encodes it', () => {
  const b = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) & 255);
  assert.equal(toBase64(b), Buffer.from(b).toString('base64'));
  assert.deepEqual(fromBase64(toBase64(b)), b);
});

test('joining and comparing', () => {
  assert.deepEqual(concatBytes([Uint8Array.of(1, 2), new Uint8Array(0), Uint8Array.of(3)]), Uint8Array.of(1, 2, 3));
  assert.ok(sameBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 2)));
  assert.ok(!sameBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 3)));
  assert.ok(!sameBytes(Uint8Array.of(1), Uint8Array.of(1, 2)));
  assert.ok(!sameBytes(null, Uint8Array.of(1)));
});

test('UTF-8: the decoder refuses bytes that are not UTF-8', () => {
  assert.equal(utf8Decoder.decode(utf8.encode('Café ☕')), 'Café ☕');
  assert.throws(() => utf8Decoder.decode(Uint8Array.of(0xff, 0xfe)));
});
