// The life of this page's session: connecting, joining with the passcode, resuming after a
// dropped connection or a reload (a fresh link, then register again with the kept key and
// resume token), being removed, leaving; and the phases the page shows meanwhile.

import { onShareMessage } from './share-view.js';
import { sameBytes } from '../core/bytes.js';
import { C, ROLE, ERR } from '../core/protocol.js';
import { deriveKey } from '../core/crypto.js';
import { Link, ConnectionLost } from '../core/link.js';
import { backoffDelay } from '../core/backoff.js';
import { $, wsURL, toast, banner } from './dom.js';
import { app, saveSession, NAME_KEY } from './state.js';
import { describe } from './notices.js';
import { renderAll } from './views.js';
import { onFloorNote } from './floor-view.js';
import { refreshPreview } from './preview.js';
import { refreshNext } from './next-slide.js';
import { noteScreen } from './go-live.js';
import { onQueue } from './alerts.js';

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

// A fresh link becomes the page's link; the one before it is closed, so no connection of
// this tab stays registered behind its back (a ghost device holding the floor).
export async function connect() {
  const link = new Link(wsURL(), {
    onState: onState,
    onFloorNote: onFloorNote,
    onServerError: (e) => onServerError(link, e),
    onClose: () => onClosed(link),
    onMessage: (command, body) => onShareMessage(link, command, body),
  });
  const before = app.link;
  app.link = link;
  if (before && before !== link) before.close();
  const hello = await link.open();
  app.hello = hello;
  $('room-name').textContent = hello.room;
  $('login-room').textContent = hello.room;
  setTitle();
  $('role-moderator-label').hidden = !hello.moderator;
  return link;
}

// The tab's title: the room, after a count of what waits for this person, if anything.
export function setTitle(waiting = app.titleCount || 0) {
  app.titleCount = waiting;
  const room = app.hello ? app.hello.room : 'Lectern';
  document.title = (waiting > 0 ? '(' + waiting + ') ' : '') + room + ' · Lectern';
}

function onServerError(link, e) {
  if (link !== app.link) return;
  if (e.code === ERR.floorExpired) {
    // Back after the grace period: the floor is gone, and this says why until dismissed
    // (the state shows who has it now; §9.6).
    app.floorLost = e.message;
    toast(e.message, 'error', { sticky: true });
    return;
  }
  if (e.code === ERR.paneExpired) {
    // Back after the grace period: the pane this device drove was emptied (§9.6); said until dismissed.
    toast(e.message, 'error', { sticky: true });
    return;
  }
  if (e.code === ERR.kicked || e.code === ERR.replaced || e.code === ERR.meetingEnded) {
    // Not to be undone by reconnecting: start over from the form.
    app.session = null; app.files = []; saveSession();
    cancelReconnect();
    app.goneMessage = e.message;
    return;
  }
  if (e.code === ERR.timedOut && app.phase !== 'in') return;   // an idle login page: reconnect on Join
  // A share's frames still on their way when it ended (the moderator withdrew it, §29.2):
  // answered noShare, nothing for the person to do, and not to push away why it ended.
  if (e.code === ERR.noShare) return;
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
    renderAll();
    scheduleReconnect();
  }
}

// ── the reconnect chain ──
// One chain per tab: at most one timer waiting and one attempt under way. An attempt that
// fails schedules the next step itself (the link's close handler stays out of it while an
// attempt runs), each step waiting longer (core/backoff.js).

function scheduleReconnect() {
  const r = app.reconnect;
  if (r.timer || r.busy || !app.session) return;
  const wait = backoffDelay(app.retry);
  app.retry++;
  r.timer = setTimeout(() => { r.timer = null; resume(); }, wait);
}

function cancelReconnect() {
  clearTimeout(app.reconnect.timer);
  app.reconnect.timer = null;
}

// The network is back (the browser says so): try now instead of at the next step.
export function reconnectNow() {
  if (app.phase !== 'reconnecting' || app.reconnect.busy) return;
  cancelReconnect();
  resume();
}

// What a failed resume means. Only the room's own "no" ends the session: the passcode
// changed (wrong passcode with the kept key), the role is gone, the protocol moved on.
// Everything else — a lost connection, `alreadyRegistered`, a full room, the throttle, a
// time-out — is tried again at the next step, the session kept.
const ENDS_SESSION = new Set([ERR.wrongPasscode, ERR.roleUnavailable, ERR.unsupportedVersion, ERR.kicked, ERR.replaced, ERR.meetingEnded]);
export const PASSCODE_CHANGED = 'The passcode of this room has changed: join again.';

// After a drop (or a reload): a fresh connection, then register again with the key and
// the resume token kept for this tab.
export async function resume() {
  const s = app.session;
  if (!s) { show('login'); return; }
  const r = app.reconnect;
  if (r.busy) return;
  cancelReconnect();
  r.busy = true;
  let outcome;
  try {
    outcome = await resumeOnce(s);
  } finally {
    r.busy = false;
  }
  if (outcome === 'retry') {
    if (app.session) { if (app.phase !== 'reconnecting') show('reconnecting'); scheduleReconnect(); }
  }
}

async function resumeOnce(s) {
  try {
    await connect();
  } catch (e) {
    if (e instanceof ConnectionLost) return 'retry';
    return fail(e);
  }
  const params = s.role === ROLE.moderator ? app.hello.moderator : app.hello.presenter;
  if (!params || params.rounds !== s.rounds || !sameBytes(params.salt, s.salt)) {
    // The passcode changed on the appliance: the kept key is no good any more.
    return end(params ? PASSCODE_CHANGED : describeRoleGone(s.role));
  }
  try {
    const ok = await app.link.register(s.role, s.name, s.key, s.token);
    joined(ok, s);
    return 'in';
  } catch (e) {
    return fail(e);
  }
}

function fail(e) {
  if (e instanceof ConnectionLost) return 'retry';
  if (e && ENDS_SESSION.has(e.code)) return end(e.code === ERR.wrongPasscode ? PASSCODE_CHANGED : describe(e));
  // Not a "no": close this link (it may be registered after all) and try again later.
  banner(describe(e) + ' Trying again…');
  const l = app.link;
  app.link = null;
  if (l) l.close();
  return 'retry';
}

function end(message) {
  app.session = null; saveSession();
  cancelReconnect();
  showLoginWith(message);
  return 'ended';
}

function describeRoleGone(role) {
  return role === ROLE.moderator ? 'This room has no moderators any more: join again.' : 'This room takes no presenters any more: join again.';
}

function showLoginWith(message) {
  show('login');
  $('login-error').textContent = message || '';
  if (app.session === null) { $('name').value = $('name').value || localStorage.getItem(NAME_KEY) || ''; }
}

function joined(ok, s) {
  app.retry = 0;
  app.floorLost = null;
  cancelReconnect();
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
    cancelReconnect();
    // A link that registered once is never reused: a fresh one (its hello has fresh parameters).
    if (!app.link || !app.link.isOpen || app.link.device !== 0xFF) await connect();
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
  cancelReconnect();
  app.session = null; app.files = [];
  saveSession();
  show('login');
  if (link && link.isOpen) {
    try { await link.request(C.unregister, new Uint8Array(0)); } catch (e) { /* closing anyway */ }
  }
  renderAll();
}

// A state is older only within one run of the service: a new epoch is the room after a
// restart, whose revision starts again from 0, and is taken whatever its revision (§14.1).
export function isStale(s, last) {
  return !!last && s.epoch === last.epoch && s.revision < last.revision;
}

function onState(s) {
  if (isStale(s, app.state)) return;
  const screenBefore = app.state ? JSON.stringify(app.state.screen) + JSON.stringify(app.state.ink) : '';
  const before = app.state;
  app.state = s;
  app.stateAt = Date.now();
  noteScreen(s);
  onQueue(before, s);
  renderAll();
  if (JSON.stringify(s.screen) + JSON.stringify(s.ink) !== screenBefore) refreshPreview();   // ink changes the picture too
  refreshNext();
}

// A tap in the room while the connection is down is answered, not swallowed: nothing is
// sent (a page turn queued through an outage would move the wall long after the tap), and
// the page says so. The room's buttons are only aria-disabled meanwhile
// (presenter-layout.js), so the tap reaches this listener first.
export const OFFLINE_TAP = 'Not connected to the appliance — that tap was not sent. Reconnecting…';

function onOfflineTap(e) {
  if (app.phase !== 'reconnecting') return;
  const room = $('room-view');
  if (!room || !room.contains(e.target) || !e.target.closest('button, input, label, a')) return;
  e.preventDefault();
  e.stopImmediatePropagation();
  toast(OFFLINE_TAP);
}

if (typeof document !== 'undefined') document.addEventListener('click', onOfflineTap, true);
