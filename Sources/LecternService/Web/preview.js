// The live picture: what the output shows now (screenshot, docs/protocol.md §13).

import { $ } from './dom.js';
import { app } from './state.js';
import { describe } from './notices.js';
import { ConnectionLost } from './link.js';

export async function refreshPreview() {
  if (app.phase !== 'in') return;
  if (app.previewBusy) { app.previewAgain = true; return; }
  app.previewBusy = true;
  try {
    // As many pixels as the box shows, not the output's 1920 × 1080: a phone on a busy
    // Wi-Fi gets its picture sooner.
    const box = $('preview');
    const dpr = window.devicePixelRatio || 1;
    app.previewWidth = Math.min(65535, Math.max(160, Math.round(box.clientWidth * dpr)));
    const shot = await app.link.screenshot(app.previewWidth, Math.min(65535, Math.max(90, Math.round(box.clientHeight * dpr))));
    const url = URL.createObjectURL(shot.png);
    const img = $('preview-img');
    img.onload = () => { if (app.previewURL && app.previewURL !== url) URL.revokeObjectURL(app.previewURL); app.previewURL = url; };
    img.src = url;
    img.hidden = false;
    $('preview').classList.add('has-image');
  } catch (e) {
    if (!(e instanceof ConnectionLost)) $('preview-note').textContent = describe(e);
  } finally {
    app.previewBusy = false;
    if (app.previewAgain) { app.previewAgain = false; refreshPreview(); }
  }
}
