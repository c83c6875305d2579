// Live sharing from this browser (docs/protocol.md §29): a screen (getDisplayMedia) or a
// camera (getUserMedia) → WebCodecs' VideoEncoder → share-frame messages on the page's
// WebSocket. Never queue to catch up: a captured picture is not encoded while the appliance
// has more than a few frames unacknowledged (a dropped capture costs no key frame; the newest
// one skipped so waits for the ack that makes room, and goes then); a key
// frame every 2 s and whenever the appliance asks; its advice sets the bitrate and rate.

import { paceCapture } from '../core/pacing.js';
import { C, SHARE_LIMITS } from '../core/protocol.js';
import { app } from './state.js';
import { CaptureClock, ShareSound, canShareSound } from './share-sound.js';
import {
  CODEC, SOURCE, PLACEMENT, SHARE_ACTION, encodeShareBegin, encodeShareFrame, decodeShareReady, decodeShareAck,
  decodeShareAdvice, decodeShareEnded,
} from '../core/share-wire.js';

export const MAX_SIDE = SHARE_LIMITS.maxSide;
export const MAX_PIXELS = SHARE_LIMITS.maxPixels;
export const KEY_INTERVAL_US = 2_000_000;
// Unacknowledged frames and bytes past which a capture is skipped.
export const MAX_IN_FLIGHT = 3;
export const MAX_IN_FLIGHT_BYTES = 1_000_000;
// Bits a pixel a frame at 30 fps: about 5 Mbit/s at 1080p, enough for sharp text at rest.
export const BITS_PER_PIXEL = 0.08;

export function canShareScreen() {
  return typeof VideoEncoder !== 'undefined' && !!(navigator.mediaDevices && navigator.mediaDevices.getDisplayMedia);
}

export function canShowCamera() {
  return typeof VideoEncoder !== 'undefined' && !!(navigator.mediaDevices && navigator.mediaDevices.getUserMedia);
}

// The size sent: the picture fitted within 1920 a side and 1920×1200 in all, even sides.
export function sendSize(w, h) {
  let s = Math.min(1, MAX_SIDE / Math.max(w, h), Math.sqrt(MAX_PIXELS / (w * h)));
  const even = (x) => Math.max(16, Math.floor(x * s / 2) * 2);
  return { width: even(w), height: even(h) };
}

// H.264 High at the level the size needs at 30 fps (3.1 to 720p, 4.0 to 1080p, else 5.0).
export function h264Codec(w, h) {
  const mbs = Math.ceil(w / 16) * Math.ceil(h / 16);
  const level = mbs <= 3600 ? 0x1F : mbs <= 8192 ? 0x28 : 0x32;
  return 'avc1.6400' + level.toString(16).padStart(2, '0');
}

async function chooseEncoder(width, height, bitrate, frameRate) {
  const base = { width, height, bitrate, framerate: frameRate, latencyMode: 'realtime' };
  const tries = [
    { codec: CODEC.h264, config: { ...base, codec: h264Codec(width, height), avc: { format: 'annexb' } } },
    { codec: CODEC.vp8, config: { ...base, codec: 'vp8' } },
    { codec: CODEC.vp9, config: { ...base, codec: 'vp09.00.40.08' } },
  ];
  for (const t of tries) {
    try {
      const r = await VideoEncoder.isConfigSupported(t.config);
      if (r && r.supported) return t;
    } catch (e) { /* not this one */ }
  }
  throw new Error('This browser can\'t encode video (no H.264, VP8 or VP9 encoder).');
}

// One share of this page: capture, encode, send, obey the appliance.
export class Sharer {
  constructor(kind, { beside = false, facing = 'environment', onChange = () => {}, onEnded = () => {} } = {}) {
    this.kind = kind;              // 'screen' | 'camera'
    this.beside = beside;
    this.facing = facing;
    this.onChange = onChange;
    this.onEnded = onEnded;
    this.live = false;             // on the wall (else waiting for the moderator)
    this.pane = null;
    this.paused = false;
    this.stopped = false;
    this.sequence = 0;
    this.inFlight = [];            // [{ sequence, bytes }] sent, not yet acknowledged
    this.forceKey = true;
    this.lastKeyUs = -Infinity;
    this.nextDueUs = -Infinity;
    this.sent = 0; this.skipped = 0;
    this.waitingDue = null;        // a due capture skipped for what is unacknowledged: its next due time
    this.waited = 0;               // captures sent late, when an ack made room
    // Why captures were skipped: early for the rate, frames or bytes unacknowledged, the encoder behind.
    this.skippedFor = { rate: 0, frames: 0, bytes: 0, encoder: 0 };
    this.lastAck = null;
    this.clock = new CaptureClock();   // the pictures' timestamps on the sound's clock
    this.sound = null;
  }

  async start() {
    this.stream = await this.capture();
    this.track = this.stream.getVideoTracks()[0];
    if (!this.track) throw new Error('Nothing to share: no video track.');
    try { this.track.contentHint = this.kind === 'screen' ? 'text' : 'detail'; } catch (e) { /* read-only in some browsers */ }
    // The browser's own "Stop sharing", or the camera taken away: the share ends.
    this.track.addEventListener('ended', () => this.stop());
    this.frames = this.reader(this.track);
    const first = await this.frames.next();
    if (!first) throw new Error('The capture gave no picture.');
    const size = sendSize(first.displayWidth, first.displayHeight);
    this.frameRate = 30;
    this.bitrate = Math.max(500_000, Math.round(size.width * size.height * BITS_PER_PIXEL * this.frameRate));
    this.asked = { bitrate: this.bitrate, frameRate: this.frameRate };
    const enc = await chooseEncoder(size.width, size.height, this.bitrate, this.frameRate);
    this.codec = enc.codec;
    this.config = enc.config;
    this.size = size;
    this.encoder = new VideoEncoder({ output: (chunk) => this.output(chunk), error: (e) => this.fail(e) });
    this.encoder.configure(this.config);
    await this.begin();
    // The tab's sound, where the capture has some and the browser can encode it.
    const audio = this.stream.getAudioTracks()[0];
    if (audio && canShareSound()) { try { this.sound = new ShareSound(this, audio); } catch (e) { this.sound = null; } }
    this.encode(first);
    this.pump();
    this.refiner = setInterval(() => this.refine(), 100);
    return this;
  }

  capture() {
    if (this.kind === 'screen') return navigator.mediaDevices.getDisplayMedia({ video: { frameRate: 30 }, audio: canShareSound() });
    return navigator.mediaDevices.getUserMedia({
      video: { facingMode: { ideal: this.facing }, width: { ideal: 1920 }, height: { ideal: 1080 } }, audio: false,
    });
  }

  // The track's pictures, one at a time: MediaStreamTrackProcessor where there is one, else
  // a <video> element's frames.
  reader(track) {
    if (typeof MediaStreamTrackProcessor !== 'undefined') {
      const r = new MediaStreamTrackProcessor({ track }).readable.getReader();
      return { next: async () => { const x = await r.read(); return x.done ? null : x.value; }, close: () => r.cancel().catch(() => {}) };
    }
    const video = document.createElement('video');
    video.muted = true; video.playsInline = true; video.srcObject = new MediaStream([track]);
    video.play().catch(() => {});
    return {
      next: () => new Promise((resolve) => {
        const take = () => { try { resolve(new VideoFrame(video, { timestamp: performance.now() * 1000 })); } catch (e) { resolve(null); } };
        if (video.requestVideoFrameCallback) video.requestVideoFrameCallback(take); else setTimeout(take, 33);
      }),
      close: () => { video.srcObject = null; },
    };
  }

  // share-begin on the page's link now (again after a reconnect: the same share goes on).
  async begin() {
    this.link = app.link;
    this.inFlight = [];
    this.forceKey = true;
    const reply = await this.link.request(C.shareBegin, encodeShareBegin({
      codec: this.codec, source: this.kind === 'screen' ? SOURCE.screen : SOURCE.camera,
      placement: this.beside ? PLACEMENT.beside : PLACEMENT.driven,
      width: this.size.width, height: this.size.height, frameRate: this.frameRate, bitrate: this.bitrate,
    }));
    this.ready(decodeShareReady(reply.body));
  }

  ready(r) {
    this.live = r.live;
    this.pane = r.pane;
    this.onChange(this);
  }

  async pump(frames = this.frames) {
    while (!this.stopped && frames === this.frames) {
      const frame = await frames.next();
      if (frames !== this.frames) { if (frame) frame.close(); return; }   // a camera switched meanwhile
      if (!frame) { this.stop(); return; }
      if (this.stopped) { frame.close(); return; }
      // A new link (the page reconnected): begin again on it once it is in the room.
      if (app.link !== this.link) {
        frame.close();
        if (app.phase === 'in' && app.link && app.link.registered && !this.rebeginning) {
          this.rebeginning = true;
          this.begin().catch(() => {}).finally(() => { this.rebeginning = false; });
        }
        continue;
      }
      this.encode(frame);
    }
  }

  // Encodes the picture unless paused, over the rate asked, or too much is unacknowledged.
  encode(frame) {
    const t = frame.timestamp;
    this.clockOffset = this.clock.at(t) - t;
    const inFlightBytes = this.inFlightBytes();
    const [due, nextDue] = paceCapture(this.nextDueUs, t, this.frameRate);
    const skip = this.paused || !this.encoder || this.encoder.state !== 'configured' ? 'paused'
      : !due ? 'rate' : this.inFlight.length >= MAX_IN_FLIGHT ? 'frames' : inFlightBytes >= MAX_IN_FLIGHT_BYTES ? 'bytes'
      : this.encoder.encodeQueueSize > 1 ? 'encoder' : null;
    if (skip) {
      if (!this.paused) {
        this.skipped++;
        if (skip in this.skippedFor) this.skippedFor[skip]++;
        // The newest picture is the one a still screen sharpens (`refine`), sent or not.
        this.hold(frame);
        // Due, but too much is unacknowledged: it waits for the ack that makes room (sent
        // then, late rather than never), unless a newer capture comes first.
        this.waitingDue = skip === 'frames' || skip === 'bytes' ? nextDue : null;
      }
      frame.close();
      return;
    }
    this.send(frame, t, nextDue);
    this.hold(frame);
    frame.close();
  }

  send(frame, t, nextDue) {
    const key = this.forceKey || t - this.lastKeyUs >= KEY_INTERVAL_US;
    if (key) { this.forceKey = false; this.lastKeyUs = t; }
    this.nextDueUs = nextDue;
    this.waitingDue = null;
    this.encoder.encode(frame, { keyFrame: key });
  }

  // Bytes sent and not yet acknowledged.
  inFlightBytes() { return this.inFlight.reduce((a, f) => a + f.bytes, 0); }

  // An ack made room: the capture that waited for it goes now (it is `held`, the newest).
  sendWaiting() {
    if (this.waitingDue == null || !this.held || this.paused || this.stopped || app.link !== this.link) return;
    if (!this.encoder || this.encoder.state !== 'configured' || this.inFlight.length >= MAX_IN_FLIGHT) return;
    if (this.inFlightBytes() >= MAX_IN_FLIGHT_BYTES) return;
    this.waited++;
    const f = new VideoFrame(this.held, { timestamp: this.held.timestamp });
    this.send(f, this.held.timestamp, this.waitingDue);
    f.close();
  }

  // Kept for a still screen (`refine`): a capture sends nothing while nothing changes.
  hold(frame) {
    if (this.held) this.held.close();
    this.held = frame.clone();
    this.heldAt = performance.now();
    this.refined = 0;
  }

  // A still screen (must 4, §29.7): the capture sends no new picture, and the last one was
  // encoded for motion. The same picture is encoded again — a key frame at 300 ms, then
  // twice more 200 ms apart — so the encoder spends the bitrate on sharpening it: 12-point
  // text is sharp on the wall within a second of the screen going still.
  refine() {
    if (this.stopped || this.paused || !this.held || !this.encoder || this.encoder.state !== 'configured') return;
    if (this.refined >= 3 || app.link !== this.link || this.inFlight.length >= MAX_IN_FLIGHT) return;
    const still = performance.now() - this.heldAt;
    if (still < 300 + this.refined * 200) return;
    const f = new VideoFrame(this.held, { timestamp: this.held.timestamp + Math.round(still * 1000) });
    this.encoder.encode(f, { keyFrame: this.refined === 0 });
    f.close();
    this.refined++;
  }

  output(chunk) {
    if (this.stopped || !this.link || !this.link.isOpen) return;
    const data = new Uint8Array(chunk.byteLength);
    chunk.copyTo(data);
    const sequence = this.sequence;
    this.sequence = (this.sequence + 1) >>> 0;
    this.inFlight.push({ sequence, bytes: data.length });
    this.sent++;
    this.link.send(C.shareFrame, encodeShareFrame(chunk.type === 'key', sequence, chunk.timestamp + (this.clockOffset || 0), data));
  }

  // A share message from the appliance (tag 0).
  message(command, body) {
    switch (command) {
      case C.shareAck: {
        const a = decodeShareAck(body);
        this.lastAck = a;
        this.inFlight = this.inFlight.filter((f) => f.sequence > a.sequence);
        this.sendWaiting();
        break;
      }
      case C.shareKeyRequest: this.forceKey = true; break;
      case C.shareAdvice: {
        const a = decodeShareAdvice(body);
        this.bitrate = Math.min(this.asked.bitrate, a.bitrate);
        this.frameRate = Math.max(1, Math.min(this.asked.frameRate, a.frameRate));
        try { this.encoder.configure({ ...this.config, bitrate: this.bitrate, framerate: this.frameRate }); } catch (e) { /* keep the old */ }
        this.forceKey = true;
        break;
      }
      case C.shareReady: this.ready(decodeShareReady(body)); break;
      case C.shareEnded: this.finish(decodeShareEnded(body)); break;
      default: break;
    }
  }

  pause(on) {
    this.paused = on;
    if (!on) this.forceKey = true;
    this.onChange(this);
    return this.link.request(C.shareControl, new Uint8Array([on ? SHARE_ACTION.pause : SHARE_ACTION.resume]));
  }

  // Stops sharing: tells the appliance (if it can) and lets the capture go.
  stop() {
    if (this.stopped) return;
    if (this.link && this.link.isOpen) this.link.send(C.shareControl, new Uint8Array([SHARE_ACTION.stop]));
    this.finish(null);
  }

  fail(e) {
    if (this.link && this.link.isOpen && !this.stopped) this.link.send(C.shareControl, new Uint8Array([SHARE_ACTION.stop]));
    this.finish(e);
  }

  finish(why) {
    if (this.stopped) return;
    this.stopped = true;
    if (this.sound) this.sound.close();
    clearInterval(this.refiner);
    if (this.held) { this.held.close(); this.held = null; }
    try { if (this.encoder && this.encoder.state !== 'closed') this.encoder.close(); } catch (e) { /* closed */ }
    if (this.frames) this.frames.close();
    if (this.stream) for (const t of this.stream.getTracks()) t.stop();
    this.onEnded(this, why);
  }

  // The camera facing the other way (phones): a new capture, the same share.
  async switchCamera() {
    if (this.kind !== 'camera') return;
    this.facing = this.facing === 'environment' ? 'user' : 'environment';
    const stream = await this.capture();
    const old = this.stream, oldFrames = this.frames;
    this.stream = stream;
    this.track = stream.getVideoTracks()[0];
    try { this.track.contentHint = 'detail'; } catch (e) { /* read-only */ }
    this.track.addEventListener('ended', () => this.stop());
    this.frames = this.reader(this.track);
    oldFrames.close();
    for (const t of old.getTracks()) t.stop();
    this.forceKey = true;
    this.pump();
  }
}
