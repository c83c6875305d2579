// A live share on the audience page (docs/protocol.md §29.8): while a share is in the main
// pane, the slide's place shows its newest picture, asked for with share-picture at the
// device's width (a JPEG), one at a time and at most twice a second, only while the page
// is visible. The counts (pictures, bytes) are kept for the measurements.
import { C } from '../core/protocol.js';
import { encodeSharePicture } from '../core/share-wire.js';

export const SHARE_INTERVAL_MS = 500;
const WIDTHS = [320, 480, 640, 960, 1280];
const follow = { device: null, busy: false, timer: 0, url: null, img: null, link: null, pictures: 0, bytes: 0 };

/// The share the wall's main pane shows (null: none).
export function mainShare(s, pane = null) {
  if (!s || !s.shares) return null;
  const main = pane !== null ? pane : s.layout ? (s.layout.panes.find((p) => p.main) || s.layout.panes[0]).index : 0;
  return s.shares.find((x) => x.status !== 'waiting' && x.pane === main) || null;
}

/// Follows `share` into `img` over `link` (null: stops following).
export function followShare(link, img, share) {
  const device = share ? share.device : null;
  follow.link = link;
  follow.img = img;
  if (device === follow.device) return;
  follow.device = device;
  clearTimeout(follow.timer);
  if (device === null) {
    if (follow.url) { URL.revokeObjectURL(follow.url); img.removeAttribute('src'); }
    follow.url = null;
    delete img.dataset.share;
    return;
  }
  img.removeAttribute('srcset');
  fetchPicture();
}

function fetchPicture() {
  const { link, img, device } = follow;
  if (device === null || follow.busy || !link || !link.isOpen) return;
  if (document.visibilityState === 'hidden') { follow.timer = setTimeout(fetchPicture, SHARE_INTERVAL_MS); return; }
  follow.busy = true;
  const started = performance.now();
  const css = img.parentElement.clientWidth || 360;
  const width = WIDTHS.find((w) => w >= css * Math.min(2, window.devicePixelRatio || 1)) || WIDTHS[WIDTHS.length - 1];
  link.image(C.sharePicture, encodeSharePicture(device, width, 0)).then((r) => {
    if (device !== follow.device) return;
    follow.pictures += 1;
    follow.bytes += r.png.size;
    const url = URL.createObjectURL(r.png);
    img.onload = () => { if (follow.url && follow.url !== url) URL.revokeObjectURL(follow.url); follow.url = url; img.onload = null; };
    img.src = url;
    img.dataset.share = String(device);
  }).catch(() => {}).finally(() => {
    follow.busy = false;
    if (device !== follow.device) return;
    follow.timer = setTimeout(fetchPicture, Math.max(0, SHARE_INTERVAL_MS - (performance.now() - started)));
  });
}

/// Pictures and bytes received so far (tests and measurements).
export function shareCounts() { return { pictures: follow.pictures, bytes: follow.bytes, device: follow.device }; }
