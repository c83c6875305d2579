// The share card (docs/protocol.md §29.7): "Share screen" (desktop browsers), "Show camera"
// (phones: the rear camera first, Switch camera), and while sharing a red bar saying so with
// Pause and Stop; for the moderator, the shares waiting for approval with their picture
// (share-picture, once a second) and Approve / Beside / Reject, and End for a live one.

import { $, toast } from './dom.js';
import { C } from '../core/protocol.js';
import { app, isModerator } from './state.js';
import { describe, act } from './notices.js';
import { Sharer, canShareScreen, canShowCamera } from './share.js';
import { SHARE_MODERATE, encodeShareModerate, encodeSharePicture } from '../core/share-wire.js';

let sharer = null;
const pictures = new Map();   // device → { url, busy }

export function currentSharer() { return sharer; }

export function setupShare() {
  $('share-screen').hidden = !canShareScreen();
  $('share-camera').hidden = !canShowCamera();
  $('share-screen').addEventListener('click', () => start('screen'));
  $('share-camera').addEventListener('click', () => start('camera'));
  $('share-pause').addEventListener('click', () => { if (sharer) act(() => sharer.pause(!sharer.paused)); });
  $('share-stop').addEventListener('click', () => { if (sharer) sharer.stop(); });
  $('share-switch').addEventListener('click', () => { if (sharer) act(() => sharer.switchCamera()); });
  $('share-requests').addEventListener('click', onModeratorClick);
  // Closing the tab or leaving the page: the share ends now, not after the grace period.
  window.addEventListener('pagehide', () => { if (sharer) sharer.stop(); });
  setInterval(refreshPictures, 1000);
}

// Share messages the link doesn't handle itself come here (session.js).
export function onShareMessage(link, command, body) {
  if (sharer && link === sharer.link) sharer.message(command, body);
}

async function start(kind) {
  if (sharer) return;
  const s = new Sharer(kind, { beside: $('share-beside').checked, onChange: renderShare, onEnded: ended });
  sharer = s;
  renderShare();
  try {
    await s.start();
  } catch (e) {
    if (sharer === s) sharer = null;
    s.finish(null);
    if (e && e.name === 'NotAllowedError') toast(kind === 'screen' ? 'Sharing was not allowed.' : 'The camera was not allowed.');
    else toast(describe(e));
    renderShare();
  }
}

function ended(s, why) {
  if (sharer === s) sharer = null;
  if (why) toast(why.message || describe(why), 'error', { sticky: true });
  renderShare();
}

export function renderShare() {
  const s = sharer;
  const on = !!s && !s.stopped;
  $('share-live').hidden = !on;
  $('share-screen').disabled = on;
  $('share-camera').disabled = on;
  $('share-beside').disabled = on;
  if (on) {
    $('share-status').textContent = !s.encoder ? 'Starting…'
      : !s.live ? 'Waiting for the moderator to put your ' + (s.kind === 'screen' ? 'screen' : 'camera') + ' on the wall…'
      : s.paused ? 'Paused: the wall shows your last picture, marked paused.'
      : 'You\'re live on the wall' + (s.pane !== null && app.state && app.state.layout && app.state.layout.panes.length > 1 ? ' (pane ' + s.pane + ')' : '') + '.';
    $('share-live').classList.toggle('waiting', !s.live);
    $('share-live').classList.toggle('paused', s.paused);
    $('share-pause').textContent = s.paused ? 'Resume' : 'Pause';
    $('share-pause').disabled = !s.live;
    $('share-switch').hidden = s.kind !== 'camera';
  }
  document.documentElement.classList.toggle('sharing', on && s.live && !s.paused);
  renderRequests();
}

// ── the moderator's side ──

function renderRequests() {
  const box = $('share-requests-box');
  const list = $('share-requests');
  const shares = (app.state && app.state.shares) || [];
  const mine = isModerator();
  box.hidden = !mine || shares.length === 0;
  if (box.hidden) { list.replaceChildren(); return; }
  const items = shares.map((sh) => {
    const li = document.createElement('li');
    li.className = 'share-request';
    li.dataset.device = sh.device;
    const img = document.createElement('img');
    img.alt = sh.name + '\'s ' + sh.source;
    img.width = 160; img.height = 90;
    const p = pictures.get(sh.device);
    if (p && p.url) img.src = p.url; else img.hidden = sh.status !== 'waiting';
    const text = document.createElement('span');
    text.className = 'ellipsis';
    text.textContent = sh.name + ' — ' + (sh.source === 'camera' ? 'camera' : 'screen') + ', '
      + (sh.status === 'waiting' ? 'waiting' : sh.status === 'live' ? 'live in pane ' + sh.pane : sh.status);
    const row = document.createElement('div');
    row.className = 'row';
    const button = (label, action, cls) => {
      const b = document.createElement('button');
      b.type = 'button'; b.textContent = label; b.dataset.shareAction = action; b.dataset.device = sh.device;
      if (cls) b.className = cls;
      row.append(b);
    };
    if (sh.status === 'waiting') {
      button('Approve', 'approve', 'primary');
      button('Beside', 'approveBeside');
      button('Reject', 'end');
    } else {
      button('End', 'end');
    }
    li.append(img, text, row);
    return li;
  });
  list.replaceChildren(...items);
}

function onModeratorClick(e) {
  const b = e.target.closest('button[data-share-action]');
  if (!b) return;
  const device = Number(b.dataset.device);
  const action = SHARE_MODERATE[b.dataset.shareAction];
  act(() => app.link.request(C.shareModerate, encodeShareModerate(device, action)));
}

// The waiting shares' pictures, once a second (the moderator looks before approving).
function refreshPictures() {
  if (!isModerator() || !app.link || !app.link.isOpen || !app.state) return;
  const waiting = (app.state.shares || []).filter((s) => s.status === 'waiting');
  for (const [d, p] of pictures) {
    if (!waiting.some((s) => s.device === d)) { if (p.url) URL.revokeObjectURL(p.url); pictures.delete(d); }
  }
  for (const s of waiting) {
    const p = pictures.get(s.device) || { url: null, busy: false };
    pictures.set(s.device, p);
    if (p.busy) continue;
    p.busy = true;
    app.link.image(C.sharePicture, encodeSharePicture(s.device, 320, 180)).then((r) => {
      if (p.url) URL.revokeObjectURL(p.url);
      p.url = URL.createObjectURL(r.png);
      const img = document.querySelector('#share-requests li[data-device="' + s.device + '"] img');
      if (img) { img.src = p.url; img.hidden = false; }
    }).catch(() => {}).finally(() => { p.busy = false; });
  }
}
