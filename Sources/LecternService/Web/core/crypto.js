// The passcode's cryptography (docs/protocol.md §7, §12.3): the key derived from the passcode,
// the proof register carries, and the possession proof of an upload. WebCrypto when the
// page may use it (https://, which the appliance serves by default, and localhost), else
// the JavaScript of sha256.js (plain http:// with allow_plain or tls = false). A file's
// SHA-256 and possession proof stay in JavaScript: WebCrypto has no incremental digest,
// and a 500 MB file is not read into memory whole.

import { utf8 } from './bytes.js';
import { HmacSha256, hmacSha256, pbkdf2Sha256 } from './sha256.js';
import { Writer } from './wire.js';

// The passcode key (protocol §7.1).
export async function deriveKey(passcode, salt, rounds) {
  const password = utf8.encode(passcode.normalize('NFC'));
  if (useWebCrypto()) {
    const k = await crypto.subtle.importKey('raw', password, 'PBKDF2', false, ['deriveBits']);
    const bits = await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations: rounds }, k, 256);
    return new Uint8Array(bits);
  }
  return pbkdf2Sha256(password, salt, rounds);
}

// Whether the passcode's key and proofs use the browser's WebCrypto (tests, §25.5).
export function usesWebCrypto() { return useWebCrypto(); }

function useWebCrypto() {
  if (typeof location !== 'undefined' && /[?&]crypto=js\b/.test(location.search)) return false;
  return typeof crypto !== 'undefined' && !!crypto.subtle && (typeof isSecureContext === 'undefined' || isSecureContext);
}

// The exact bytes of §7.2 that the proof is the HMAC of.
export function registerMAC(challenge, role, nameBytes, token) {
  return new Writer().bytes(utf8.encode('lectern-register-v1')).bytes(challenge).u8(role)
    .u16(nameBytes.length).bytes(nameBytes).u8(token ? token.length : 0).bytes(token || new Uint8Array(0)).done();
}

export async function registerProof(key, challenge, role, nameBytes, token) {
  const input = registerMAC(challenge, role, nameBytes, token);
  if (useWebCrypto()) {
    const k = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    return new Uint8Array(await crypto.subtle.sign('HMAC', k, input));
  }
  return hmacSha256(key, input);
}

// The possession proof of an upload (§12.3): HMAC-SHA256 keyed with the connection's
// challenge over a label and the file; the caller feeds it the file with update().
export function possessionProof(challenge) {
  return new HmacSha256(challenge).update(utf8.encode('lectern-possession-v1'));
}
