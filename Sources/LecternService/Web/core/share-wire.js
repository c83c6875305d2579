// Live sharing's messages (docs/protocol.md §29.2): their bodies, encoded and decoded.

import { Writer, Reader, decodeError } from './wire.js';

export const CODEC = Object.freeze({ h264: 1, vp8: 2, vp9: 3 });
export const SOURCE = Object.freeze({ screen: 1, camera: 2, file: 3 });
export const PLACEMENT = Object.freeze({ driven: 0, beside: 1 });
export const SHARE_ACTION = Object.freeze({ pause: 1, resume: 2, stop: 3 });
export const SHARE_MODERATE = Object.freeze({ approve: 1, approveBeside: 2, end: 3 });

export function encodeShareBegin(c) {
  return new Writer().u8(c.codec).u8(c.source).u8(c.placement).u8(0)
    .u16(c.width).u16(c.height).u16(c.frameRate).u32(c.bitrate).done();
}

// share-frame's body: flags, reserved, sequence, capture time (µs), the encoded picture.
export function encodeShareFrame(key, sequence, timestampUs, data) {
  const b = new Uint8Array(16 + data.length);
  const v = new DataView(b.buffer);
  v.setUint8(0, key ? 1 : 0);
  v.setUint32(4, sequence >>> 0);
  const t = Math.max(0, Math.floor(timestampUs));
  v.setUint32(8, Math.floor(t / 0x100000000)); v.setUint32(12, t >>> 0);
  b.set(data, 16);
  return b;
}

export function decodeShareReady(body) {
  const r = new Reader(body);
  const status = r.u8(), pane = r.u8();
  return { live: status === 1, pane: pane === 0xFF ? null : pane, frameRate: r.u16(), bitrate: r.u32() };
}

export function decodeShareAck(body) {
  const r = new Reader(body);
  return { sequence: r.u32(), decoded: r.u32(), dropped: r.u32(), queuedBytes: r.u32() };
}

export function decodeShareKeyRequest(body) { return new Reader(body).u32(); }

export function decodeShareAdvice(body) {
  const r = new Reader(body);
  return { bitrate: r.u32(), frameRate: r.u16(), reason: r.u8() };
}

export const decodeShareEnded = decodeError;

// share-audio's body: codec (1 Opus), channels, reserved, sequence, capture time (µs), the packet.
export function encodeShareAudio(channels, sequence, timestampUs, data) {
  const b = new Uint8Array(16 + data.length);
  const v = new DataView(b.buffer);
  v.setUint8(0, 1);
  v.setUint8(1, channels);
  v.setUint32(4, sequence >>> 0);
  const t = Math.max(0, Math.floor(timestampUs));
  v.setUint32(8, Math.floor(t / 0x100000000)); v.setUint32(12, t >>> 0);
  b.set(data, 16);
  return b;
}

export function encodeShareModerate(device, action) { return new Uint8Array([device, action]); }

export function encodeSharePicture(device, maxWidth, maxHeight) {
  return new Writer().u8(device).u8(0).u16(maxWidth).u16(maxHeight).done();
}
