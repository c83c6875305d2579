// core/crypto.js: the passcode's key (§7.1), register's proof (§7.2) and the possession
// proof (§12.3), through WebCrypto and through the JavaScript of sha256.js alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, pbkdf2Sync } from 'node:crypto';
import { deriveKey, registerProof, registerMAC, possessionProof, usesWebCrypto } from '../../Sources/LecternService/Web/core/crypto.js';
import { CHALLENGE, SALT } from './appliance.mjs';

const name = new TextEncoder().encode('Ana’s laptop');
const token = new Uint8Array(16).fill(9);

async function both(fn) {
  assert.equal(usesWebCrypto(), true, 'Node has WebCrypto, as an https page does');
  const web = await fn();
  globalThis.isSecureContext = false;   // a plain http:// page: no WebCrypto
  try {
    assert.equal(usesWebCrypto(), false);
    return [web, await fn()];
  } finally { delete globalThis.isSecureContext; }
}

test('the key is PBKDF2-HMAC-SHA256 of the NFC passcode', async () => {
  const [web, js] = await both(() => deriveKey('Cafe\u0301', SALT, 1000));
  const want = pbkdf2Sync(Buffer.from('Caf\u00e9'), SALT, 1000, 32, 'sha256');
  assert.deepEqual(Buffer.from(web), want);
  assert.deepEqual(Buffer.from(js), want);
});

test('register\'s proof is the HMAC of exactly the bytes of §7.2', async () => {
  const key = new Uint8Array(32).fill(4);
  const mac = registerMAC(CHALLENGE, 2, name, token);
  assert.deepEqual(Buffer.from(mac), Buffer.concat([Buffer.from('lectern-register-v1'), CHALLENGE, Buffer.of(2, 0, name.length), name, Buffer.of(16), token]));
  assert.deepEqual(Buffer.from(registerMAC(CHALLENGE, 1, name, null)).subarray(-1), Buffer.of(0), 'no token: its length 0');
  const [web, js] = await both(() => registerProof(key, CHALLENGE, 2, name, token));
  const want = createHmac('sha256', key).update(mac).digest();
  assert.deepEqual(Buffer.from(web), want);
  assert.deepEqual(Buffer.from(js), want);
});

test('the possession proof is keyed with the challenge, over the label and the file', () => {
  const file = Uint8Array.from({ length: 5000 }, (_, i) => i & 255);
  const p = possessionProof(CHALLENGE);
  p.update(file.subarray(0, 1234)); p.update(file.subarray(1234));
  assert.deepEqual(Buffer.from(p.digest()), createHmac('sha256', CHALLENGE).update('lectern-possession-v1').update(file).digest());
});
