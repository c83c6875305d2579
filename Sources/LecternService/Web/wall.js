// /wall: the exact frame on the output, live (docs/config.md, "The wall"), for the
// moderator, and for a newcomer running `make run` without a projector. It joins as a
// moderator device named "Wall view" and asks for a full-size screenshot (§6.8) whenever
// the state changes, and once a second while a clip plays.

import { Link, ConnectionLost } from './link.js';
import { deriveKey } from './crypto.js';
import { ROLE, C } from './protocol.js';

const $ = (id) => document.getElementById(id);
let link = null, busy = false, again = false, url = null, playing = false;

async function refresh() {
  if (!link || !link.isOpen) return;
  if (busy) { again = true; return; }
  busy = true;
  try {
    const shot = await link.screenshot(0, 0);   // 0 × 0: the frame as it is, not scaled
    const next = URL.createObjectURL(shot.png);
    const img = $('wall-img');
    img.onload = () => {
      if (url && url !== next) URL.revokeObjectURL(url);
      url = next;
      img.dataset.frames = String(Number(img.dataset.frames || 0) + 1);
    };
    img.width = shot.width;
    img.height = shot.height;
    img.src = next;
    img.hidden = false;
  } catch (e) {
    if (!(e instanceof ConnectionLost)) $('wall-error').textContent = e.message || String(e);
  } finally {
    busy = false;
    if (again) { again = false; refresh(); }
  }
}

async function join(ev) {
  ev.preventDefault();
  $('wall-error').textContent = '';
  try {
    const wsURL = (location.protocol === 'https:' ? 'wss:' : 'ws:') + '//' + location.host + '/ws';
    link = new Link(wsURL, {
      onState: (s) => { playing = !!(s.screen && s.screen.clip && s.screen.clip.state === 'playing'); refresh(); },
      onFloorNote: () => {},
      onServerError: (e) => { $('wall-error').textContent = e.message; },
      onClose: () => { $('wall-img').hidden = true; $('wall-login').hidden = false; $('wall-error').textContent = 'The connection to the appliance was lost.'; },
    });
    const hello = await link.open();
    if (!hello.moderator) throw new Error('This room has no moderator passcode: the wall view is for the moderator.');
    const key = await deriveKey($('wall-passcode').value, hello.moderator.salt, hello.moderator.rounds);
    await link.register(ROLE.moderator, 'Wall view', key, null);
    await link.request(C.wallView);   // a display, not a person: it keeps no meeting alive (§27)
    $('wall-passcode').value = '';
    $('wall-login').hidden = true;
    refresh();
  } catch (e) {
    if (link) link.close();
    $('wall-error').textContent = e.message || String(e);
  }
}

$('wall-login').addEventListener('submit', join);
setInterval(() => { if (playing) refresh(); }, 1000);
