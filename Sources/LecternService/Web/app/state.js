// The page's state: what it knows of the room, of this tab's session and of its own
// activity; what follows from it; and what the tab keeps across a reload (the key and
// the resume token, in sessionStorage) or for the next visit (the name, in localStorage).

import { SESSION_KEY, sessionText, readSession } from '../core/saved-session.js';
import { ROLE } from '../core/protocol.js';
import { ConnectionLost } from '../core/link.js';

export const app = {
  phase: 'connecting',     // connecting · login · joining · in · reconnecting · gone
  link: null,
  hello: null,
  session: null,           // { name, role, key, salt, rounds, token, id }
  state: null,
  stateAt: 0,
  files: [],               // uploads this session owns: { id, name, kind, pages, durationMs }
  next: { key: '', done: '', serial: 0, url: null, png: null, width: 0, height: 0 },   // the next-slide thumbnail; done: the key last answered
  previewBusy: false,
  previewWidth: 0,         // the width asked for the live picture, in device pixels
  previewAgain: false,
  previewURL: null,
  retry: 0,
  reconnect: { timer: null, busy: false },   // the one reconnect chain (session.js)
  titleCount: 0,
  uploading: false,
  armed: new Map(),        // kick buttons waiting for their second tap
  waiters: [],
};

export const NAME_KEY = 'lectern.name';

export function saveSession() {
  const s = app.session;
  if (!s) { sessionStorage.removeItem(SESSION_KEY); return; }
  sessionStorage.setItem(SESSION_KEY, sessionText(s, app.files));
}

export function loadSession() {
  try { return readSession(sessionStorage.getItem(SESSION_KEY)); } catch (e) { return null; }
}

// Resolves once the page is in the room; rejects after timeoutMs or when it leaves.
export function whenIn(timeoutMs) {
  return new Promise((resolve, reject) => {
    if (app.phase === 'in') { resolve(); return; }
    const timer = setTimeout(() => reject(new ConnectionLost('The connection to the appliance was lost.')), timeoutMs);
    const check = () => {
      if (app.phase === 'in') { clearTimeout(timer); resolve(); } else if (app.phase === 'login' || app.phase === 'gone') {
        clearTimeout(timer); reject(new ConnectionLost('You left the room.'));
      } else app.waiters.push(check);
    };
    app.waiters.push(check);
  });
}

export function me() { return app.session ? app.session.id : null; }

export function isModerator() { return !!app.session && app.session.role === ROLE.moderator; }

export function canDrive() {
  const s = app.state;
  if (!s || !app.session) return false;
  return isModerator() || s.floor.driver === me() || drivesPane();
}

// This device drives a pane of the wall other than the main one (§9.7): its controls act there.
export function drivesPane() {
  const s = app.state;
  return !!(s && s.layout && app.session && s.layout.panes.some((p) => !p.main && p.driver === me()));
}

export function deviceName(id) {
  const d = app.state && app.state.devices.find((x) => x.id === id);
  return d ? d.name : 'device ' + id;
}

// Where the clip on screen is now: its last reported position, moved on by the time since.
export function clipPosition() {
  const clip = app.state && app.state.screen.clip;
  if (!clip) return 0;
  const p = clip.state === 'playing' ? clip.positionMs + (Date.now() - app.stateAt) : clip.positionMs;
  return Math.min(clip.durationMs, p);
}
