// The live picture: what the output shows now (screenshot, docs/protocol.md §13), sized to
// the box (at most 2 device pixels per CSS pixel: a 3× phone gets no sharper picture it
// could see), a JPEG where that is smaller (a photo), and only fetched while the picture
// is in view and the tab visible (a change meanwhile is fetched when it comes back).

import { $ } from './dom.js';
import { app } from './state.js';
import { describe } from './notices.js';
import { ConnectionLost } from '../core/link.js';

export const MAX_SCALE = 2;

function visible() {
  if (typeof document !== 'undefined' && document.visibilityState === 'hidden') return false;
  return app.previewInView !== false;
}

export async function refreshPreview() {
  if (app.phase !== 'in') return;
  if (!visible()) { app.previewStale = true; return; }
  if (app.previewBusy) { app.previewAgain = true; return; }
  app.previewBusy = true;
  app.previewStale = false;
  try {
    const box = $('preview');
    const scale = Math.min(MAX_SCALE, window.devicePixelRatio || 1);
    app.previewWidth = Math.min(65535, Math.max(160, Math.round(box.clientWidth * scale)));
    const shot = await app.link.screenshot(app.previewWidth, Math.min(65535, Math.max(90, Math.round(box.clientHeight * scale))), true);
    app.previewBytes = (app.previewBytes || 0) + shot.bytes;
    app.previewFetches = (app.previewFetches || 0) + 1;
    app.previewType = shot.png.type;
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

// Watches whether the picture is on screen; a change missed while it wasn't is fetched
// when it is again.
export function watchPreview() {
  const again = () => { if (app.previewStale && visible()) refreshPreview(); };
  if (typeof IntersectionObserver === 'function') {
    new IntersectionObserver((entries) => {
      for (const e of entries) app.previewInView = e.isIntersecting;
      again();
    }).observe($('preview'));
  }
  document.addEventListener('visibilitychange', again);
}
