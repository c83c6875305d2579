// The life of this page's session: connecting, joining with the passcode, resuming after a
// dropped connection or a reload (a fresh link, then register again with the kept key and
// resume token), being removed, leaving; and the phases the page shows meanwhile.

import { sameBytes } from './bytes.js';
import { C, ROLE, ERR } from './protocol.js';
import { deriveKey } from './crypto.js';
import { Link, ConnectionLost } from './link.js';
import { $ } from './dom.js';
import { app, saveSession, NAME_KEY } from './state.js';
import { toast, describe, banner } from './notices.js';
import { renderAll } from './views.js';
import { onFloorNote } from './floor-view.js';
import { refreshPreview } from './preview.js';
import { refreshNext } from './next-slide.js';

function wsURL() {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return scheme + '//' + location.host + '/ws';
}

export function show(phase) {
  app.phase = phase;
  document.body.dataset.phase = phase;
  $('login-view').hidden = !(phase === 'login' || phase === 'joining' || phase === 'gone' || phase === 'connecting');
  $('room-view').hidden = !(phase === 'in' || phase === 'reconnecting');
  $('leave').hidden = !(phase === 'in' || phase === 'reconnecting');
  $('join').disabled = phase === 'joining' || phase === 'connecting';
  $('join').textContent = phase === 'joining' ? 'Joining…' : phase === 'connecting' ? 'Connecting…' : 'Join';
  if (phase === 'in') banner('');
  for (const w of app.waiters.splice(0)) w();
}

export async function connect() {
  const link = new Link(wsURL(), {
    onState: onState,
    onFloorNote: onFloorNote,
    onServerError: (e) => onServerError(link, e),
    onClose: () => onClosed(link),
  });
  app.link = link;
  const hello = await link.open();
  app.hello = hello;
  $('room-name').textContent = hello.room;
  $('login-room').textContent = hello.room;
  document.title = hello.room + ' · Lectern';
  $('role-moderator-label').hidden = !hello.moderator;
  return link;
}

function onServerError(link, e) {
  if (link !== app.link) return;
  if (e.code === ERR.kicked || e.code === ERR.replaced) {
    // Not to be undone by reconnecting: start over from the form.
    app.session = null; app.files = []; saveSession();
    app.goneMessage = e.message;
    return;
  }
  if (e.code === ERR.timedOut && app.phase !== 'in') return;   // an idle login page: reconnect on Join
  if (app.phase === 'in' || e.closes) toast(e.message);
  if (e.closes) app.goneMessage = e.message;
}

function onClosed(link) {
  if (link !== app.link) return;
  if (app.phase === 'in' || app.phase === 'reconnecting') {
    if (!app.session) {   // kicked or replaced
      show('gone');
      $('login-error').textContent = app.goneMessage || 'The appliance closed the connection.';
      app.goneMessage = null;
      renderAll();
      return;
    }
    show('reconnecting');
    banner((app.goneMessage ? app.goneMessage + ' ' : '') + 'Connection lost — reconnecting…');
    app.goneMessage = null;
    scheduleReconnect();
  }
}

function scheduleReconnect() {
  const delays = [500, 1000, 2000, 4000];
  const d = delays[Math.min(app.retry, delays.length - 1)];
  app.retry++;
  setTimeout(resume, d);
}

// After a drop (or a reload): a fresh connection, then register again with the key and
// the resume token kept for this tab.
export async function resume() {
  const s = app.session;
  if (!s) { show('login'); return; }
  try {
    await connect();
  } catch (e) {
    if (app.phase === 'reconnecting') scheduleReconnect(); else showLoginWith('');
    return;
  }
  const params = s.role === ROLE.moderator ? app.hello.moderator : app.hello.presenter;
  if (!params || params.rounds !== s.rounds || !sameBytes(params.salt, s.salt)) {
    // The passcode changed on the appliance: the kept key is no good any more.
    app.session = null; saveSession();
    showLoginWith('The passcode of this room has changed: join again.');
    return;
  }
  try {
    const ok = await app.link.register(s.role, s.name, s.key, s.token);
    joined(ok, s);
  } catch (e) {
    if (e instanceof ConnectionLost) { if (app.session) { show('reconnecting'); scheduleReconnect(); } return; }
    app.session = null; saveSession();
    showLoginWith(describe(e));
  }
}

function showLoginWith(message) {
  show('login');
  $('login-error').textContent = message || '';
  if (app.session === null) { $('name').value = $('name').value || localStorage.getItem(NAME_KEY) || ''; }
}

function joined(ok, s) {
  app.retry = 0;
  app.session = { name: s.name, role: ok.role, key: s.key, salt: s.salt, rounds: s.rounds, token: ok.token, id: ok.id };
  if (!ok.resumed) app.files = [];   // uploads belong to the device's session (§12.3)
  saveSession();
  $('whoami-name').textContent = s.name;
  $('whoami-role').textContent = ok.role === ROLE.moderator ? 'moderator' : 'presenter';
  $('login-error').textContent = '';
  $('passcode').value = '';
  show('in');
  if (ok.floorRestored) toast('You have the floor again.', 'info');
  app.next.key = '';
  renderAll();
  refreshPreview();
  refreshNext();
}

export async function join(ev) {
  ev.preventDefault();
  if (app.phase === 'joining') return;
  const name = $('name').value.trim();
  const passcode = $('passcode').value;
  const role = document.querySelector('input[name=role]:checked').value === 'moderator' ? ROLE.moderator : ROLE.presenter;
  $('login-error').textContent = '';
  localStorage.setItem(NAME_KEY, name);
  show('joining');
  try {
    if (!app.link || !app.link.isOpen) await connect();
    const params = role === ROLE.moderator ? app.hello.moderator : app.hello.presenter;
    // No parameters for a role: the room doesn't offer it; the appliance says so in words.
    const key = params ? await deriveKey(passcode, params.salt, params.rounds) : null;
    if (!app.link.isOpen) await connect();
    const p2 = role === ROLE.moderator ? app.hello.moderator : app.hello.presenter;
    const ok = await app.link.register(role, name, key, null);
    joined(ok, { name, role, key, salt: p2.salt, rounds: p2.rounds });
  } catch (e) {
    show('login');
    $('login-error').textContent = describe(e);
  }
}

export async function leave() {
  const link = app.link;
  app.session = null; app.files = [];
  saveSession();
  show('login');
  if (link && link.isOpen) {
    try { await link.request(C.unregister, new Uint8Array(0)); } catch (e) { /* closing anyway */ }
  }
  renderAll();
}

function onState(s) {
  if (app.state && s.revision < app.state.revision) return;
  const screenBefore = app.state ? JSON.stringify(app.state.screen) + JSON.stringify(app.state.ink) : '';
  app.state = s;
  app.stateAt = Date.now();
  renderAll();
  if (JSON.stringify(s.screen) + JSON.stringify(s.ink) !== screenBefore) refreshPreview();   // ink changes the picture too
  refreshNext();
}
