// SHA-256, HMAC-SHA256, PBKDF2-HMAC-SHA256 in JavaScript: FIPS 180-4 and RFC 2104 /
// RFC 8018. Used for file hashing (streamed, any size) and, when the page is not a secure
// context (no crypto.subtle: WebCrypto exists only on https:// and localhost, and the
// appliance is plain http:// on the room's Wi-Fi), for the passcode key too.

const nextTick = () => new Promise((resolve) => setTimeout(resolve, 0));

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

export class Sha256 {
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

export function sha256(bytes) { return new Sha256().update(bytes).digest(); }

export class HmacSha256 {
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

export function hmacSha256(key, data) { return new HmacSha256(key).update(data).digest(); }

// PBKDF2-HMAC-SHA256 with a 32-byte output (one block). Each round is two compressions
// from the precomputed inner and outer pad states. Yields to the page every few thousand
// rounds so the page stays alive (and keeps answering pings) on a slow phone.
export async function pbkdf2Sha256(password, salt, iterations) {
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

