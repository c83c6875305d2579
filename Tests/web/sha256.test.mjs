// core/sha256.js: SHA-256, HMAC and PBKDF2 in JavaScript (for pages without WebCrypto),
// against Node's own (OpenSSL).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, pbkdf2Sync } from 'node:crypto';
import { Sha256, sha256, hmacSha256, HmacSha256, pbkdf2Sha256 } from '../../Sources/LecternService/Web/core/sha256.js';

const bytes = (n, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 255);

test('SHA-256 of every length around the block boundaries, whole and in pieces', () => {
  for (const n of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 100000]) {
    const b = bytes(n);
    const want = createHash('sha256').update(b).digest('hex');
    assert.equal(Buffer.from(sha256(b)).toString('hex'), want, n + ' bytes');
    const s = new Sha256();
    for (let i = 0; i < n; i += 17) s.update(b.subarray(i, i + 17));
    assert.equal(Buffer.from(s.digest()).toString('hex'), want, n + ' bytes in pieces');
  }
});

test('HMAC-SHA256, a key longer than a block included', () => {
  for (const k of [bytes(32), bytes(64), bytes(100)]) {
    const d = bytes(300, 9);
    assert.equal(Buffer.from(hmacSha256(k, d)).toString('hex'), createHmac('sha256', k).update(d).digest('hex'));
    assert.equal(Buffer.from(new HmacSha256(k).update(d.subarray(0, 10)).update(d.subarray(10)).digest()).toString('hex'),
      createHmac('sha256', k).update(d).digest('hex'));
  }
});

test('PBKDF2-HMAC-SHA256 at the rounds the appliance uses', async () => {
  const password = new TextEncoder().encode('correct horse'), salt = bytes(16, 3);
  for (const rounds of [1, 2, 1000, 8193]) {
    const got = await pbkdf2Sha256(password, salt, rounds);
    assert.equal(Buffer.from(got).toString('hex'), pbkdf2Sync(password, salt, rounds, 32, 'sha256').toString('hex'), rounds + ' rounds');
  }
});
