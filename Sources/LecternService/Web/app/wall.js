// /wall: the exact frame on the output, live (docs/config.md, "The wall"), for the
// moderator, and for a newcomer running `make run` without a projector. It joins as a
// moderator device named "Wall view" and asks for a full-size screenshot (§6.8) whenever
// the state changes, and once a second while a clip plays. When the connection drops (a
// restart of the appliance, the Wi-Fi) it comes back by itself: a fresh connection, the
// key derived at login kept in this page's memory, the same back-off as the remote's
// (core/backoff.js); the last frame stays up meanwhile, marked stale.

import { Link, ConnectionLost } from '../core/link.js';
import { backoffDelay } from '../core/backoff.js';
import { deriveKey } from '../core/crypto.js';
import { ROLE, C, ERR } from '../core/protocol.js';
import { $, wsURL } from './dom.js';

const wall = { link: null, key: null, salt: null, rounds: 0, token: null, retry: 0, timer: null, reconnects: 0 };
let busy = false, again = false, url = null, playing = false;
window.LecternWall = wall;

async function refresh() {
  const link = wall.link;
  if (!link || !link.isOpen || !link.registered) return;
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
    if (!(e instanceof ConnectionLost)) status(e.message || String(e));
  } finally {
    busy = false;
    if (again) { again = false; refresh(); }
  }
}

// A line over the frame: why it may be stale. Empty: the frame is live.
function status(text) {
  let s = $('wall-status');
  if (!s) {
    s = document.createElement('p');
    s.id = 'wall-status';
    s.setAttribute('role', 'status');
    s.style.cssText = 'position:fixed;left:0;right:0;top:0;margin:0;padding:.5rem 1rem;background:#7a5200;color:#fff;text-align:center;font-weight:600;z-index:2';
    document.body.append(s);
  }
  s.textContent = text;
  s.hidden = !text;
  $('wall-img').style.opacity = text ? '.6' : '';
}

// A fresh link, registered as the wall with the kept key (and the device's token).
async function open() {
  const link = new Link(wsURL(), {
    onState: (s) => { if (link === wall.link) { playing = !!(s.screen && s.screen.clip && s.screen.clip.state === 'playing'); refresh(); } },
    onFloorNote: () => {},
    onServerError: (e) => { if (link === wall.link && link.registered && !e.closes) status(e.message); },
    onClose: () => lost(link),
  });
  const before = wall.link;
  wall.link = link;
  if (before && before !== link) before.close();
  const hello = await link.open();
  if (!hello.moderator) throw new Error('This room has no moderator passcode: the wall view is for the moderator.');
  return { link, hello };
}

async function join(ev) {
  ev.preventDefault();
  $('wall-error').textContent = '';
  try {
    const { link, hello } = await open();
    const key = await deriveKey($('wall-passcode').value, hello.moderator.salt, hello.moderator.rounds);
    const ok = await link.register(ROLE.moderator, 'Wall view', key, null);
    Object.assign(wall, { key, salt: hello.moderator.salt, rounds: hello.moderator.rounds, token: ok.token, retry: 0 });
    await link.request(C.wallView);   // a display, not a person: it keeps no meeting alive (§27)
    $('wall-passcode').value = '';
    $('wall-login').hidden = true;
    status('');
    refresh();
  } catch (e) {
    if (wall.link) wall.link.close();
    $('wall-error').textContent = e.message || String(e);
  }
}

function lost(link) {
  if (link !== wall.link) return;
  if (!wall.key) return;   // never joined: the form is still up
  status('Connection to the appliance lost — reconnecting…');
  schedule();
}

function schedule() {
  if (wall.timer) return;
  const wait = backoffDelay(wall.retry);
  wall.retry++;
  wall.timer = setTimeout(() => { wall.timer = null; resume(); }, wait);
}

async function resume() {
  try {
    const { link, hello } = await open();
    const m = hello.moderator;
    if (m.rounds !== wall.rounds || m.salt.length !== wall.salt.length || m.salt.some((b, i) => b !== wall.salt[i])) {
      return giveUp('The moderator passcode of this room has changed: give it again.');
    }
    const ok = await link.register(ROLE.moderator, 'Wall view', wall.key, wall.token);
    wall.token = ok.token;
    await link.request(C.wallView);   // again on each connection (§27)
    wall.retry = 0;
    wall.reconnects++;
    status('');
    refresh();
  } catch (e) {
    if (e && (e.code === ERR.wrongPasscode || e.code === ERR.roleUnavailable)) return giveUp(e.message);
    const l = wall.link;
    wall.link = null;   // its close is this chain's, not news
    if (l) l.close();
    schedule();
  }
}

// The room said no: back to the form, saying why.
function giveUp(message) {
  wall.key = null;
  wall.token = null;
  if (wall.link) wall.link.close();
  status('');
  $('wall-img').hidden = true;
  $('wall-login').hidden = false;
  $('wall-error').textContent = message;
}

$('wall-login').addEventListener('submit', join);
setInterval(() => { if (playing) refresh(); }, 1000);
