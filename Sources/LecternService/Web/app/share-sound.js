// The sound of a shared tab (docs/protocol.md §29.9): the capture's audio track, encoded
// with WebCodecs' AudioEncoder as Opus (20 ms packets), sent as share-audio on the share's
// link with capture times on the same clock as the pictures' (each track's timestamps moved
// onto performance.now()), so the appliance keeps the picture with the sound. Where the
// browser has no AudioEncoder or no MediaStreamTrackProcessor, or the capture has no sound
// (the user didn't tick "Share tab audio"), the share goes on silent.
import { C } from '../core/protocol.js';
import { encodeShareAudio } from '../core/share-wire.js';

/// Moves one track's timestamps (µs) onto performance.now()'s clock: the smallest
/// difference over the first samples (the least delayed read), then fixed.
export class CaptureClock {
  constructor() { this.offset = Infinity; this.seen = 0; }
  at(timestampUs) {
    if (this.seen < 30) { this.offset = Math.min(this.offset, performance.now() * 1000 - timestampUs); this.seen++; }
    return Math.max(0, timestampUs + this.offset);
  }
}

export function canShareSound() {
  return typeof AudioEncoder !== 'undefined' && typeof MediaStreamTrackProcessor !== 'undefined';
}

export class ShareSound {
  /// Starts encoding `track` for `sharer` (its link, paused and stopped states).
  constructor(sharer, track) {
    this.sharer = sharer;
    this.clock = new CaptureClock();
    this.sequence = 0;
    this.sent = 0;
    const s = track.getSettings ? track.getSettings() : {};
    this.channels = Math.min(2, Math.max(1, s.channelCount || 2));
    this.encoder = new AudioEncoder({ output: (chunk) => this.output(chunk), error: () => this.close() });
    this.configured = false;
    this.reader = new MediaStreamTrackProcessor({ track }).readable.getReader();
    this.pump();
  }

  async pump() {
    while (!this.sharer.stopped && this.encoder) {
      let x;
      try { x = await this.reader.read(); } catch (e) { return; }
      if (x.done) return;
      const d = x.value;
      const at = this.clock.at(d.timestamp);
      if (this.sharer.paused || !this.encoder || this.encoder.state === 'closed') { d.close(); continue; }
      if (!this.configured) {
        this.configured = true;
        this.channels = Math.min(2, d.numberOfChannels);
        try {
          this.encoder.configure({ codec: 'opus', sampleRate: d.sampleRate, numberOfChannels: this.channels, bitrate: 96_000 });
        } catch (e) { d.close(); this.close(); return; }
      }
      this.offset = at - d.timestamp;
      try { this.encoder.encode(d); } catch (e) { /* a frame the encoder refused: skipped */ }
      d.close();
    }
  }

  output(chunk) {
    const link = this.sharer.link;
    if (this.sharer.stopped || this.sharer.paused || !link || !link.isOpen) return;
    const data = new Uint8Array(chunk.byteLength);
    chunk.copyTo(data);
    link.send(C.shareAudio, encodeShareAudio(this.channels, this.sequence, chunk.timestamp + (this.offset || 0), data));
    this.sequence = (this.sequence + 1) >>> 0;
    this.sent++;
  }

  close() {
    try { if (this.encoder && this.encoder.state !== 'closed') this.encoder.close(); } catch (e) { /* closed */ }
    this.encoder = null;
    try { this.reader.cancel().catch(() => {}); } catch (e) { /* gone */ }
  }
}
