// The rate of an upload and the time it has left, from the bytes the appliance confirmed
// (upload-progress) over the last few seconds.

export function formatRate(bytesPerSecond) {
  if (bytesPerSecond >= 1e6) return (bytesPerSecond / 1e6).toFixed(1) + ' MB/s';
  return Math.max(1, Math.round(bytesPerSecond / 1e3)) + ' kB/s';
}

export function formatLeft(seconds) {
  if (seconds < 60) return Math.max(1, Math.ceil(seconds)) + ' s left';
  const m = Math.floor(seconds / 60), s = Math.ceil(seconds % 60);
  return m + ' min ' + (s ? s + ' s ' : '') + 'left';
}

export class UploadSpeed {
  constructor(windowMs = 5000) { this.windowMs = windowMs; this.samples = []; }

  // ' · 1.2 MB/s · 3 s left' once there is a rate to tell, else ''.
  describe(done, total, now = Date.now()) {
    this.samples.push([now, done]);
    while (this.samples.length > 2 && now - this.samples[0][0] > this.windowMs) this.samples.shift();
    const [t0, d0] = this.samples[0];
    if (now - t0 < 300 || done <= d0) return '';
    const rate = (done - d0) * 1000 / (now - t0);
    return ' · ' + formatRate(rate) + (done < total ? ' · ' + formatLeft((total - done) / rate) : '');
  }
}
