// Joining without typing (docs/protocol.md §28.3): what this browser keeps of a join, in
// localStorage, so that a new tab or a second scan of the wall's QR code joins again at
// once. Kept: the name (for every later visit) and the passcode's derived key with its
// salt and rounds (never the passcode itself), for the meeting it was typed in: the key is
// forgotten when the state shows another meeting (its `meeting` id), after 12 hours at the
// most, on Leave, and when the room says no (the passcode changed, removed from the room).
// No DOM: the storage is the page's localStorage unless one is passed in.

import { toBase64, fromBase64 } from './bytes.js';

export const REMEMBERED_KEY = 'lectern.remembered';
export const REMEMBER_MS = 12 * 3600 * 1000;

function storage(store) {
  try { return store || globalThis.localStorage || null; } catch (e) { return null; }
}

// The key of a session that just joined: { name, role, key, salt, rounds } and the room's name.
export function remember(session, room, meeting = null, now = Date.now(), store = undefined) {
  const s = storage(store);
  if (!s || !session || !session.key) return;
  s.setItem(REMEMBERED_KEY, JSON.stringify({
    room, name: session.name, role: session.role, key: toBase64(session.key), salt: toBase64(session.salt),
    rounds: session.rounds, meeting, savedAt: now,
  }));
}

// What is kept, if still good: a session to join with (no resume token: a new device).
export function recall(now = Date.now(), store = undefined) {
  const s = storage(store);
  if (!s) return null;
  try {
    const j = JSON.parse(s.getItem(REMEMBERED_KEY) || 'null');
    if (!j || !j.key || !(now - j.savedAt >= 0 && now - j.savedAt < REMEMBER_MS)) { forget(s); return null; }
    return { room: j.room, meeting: j.meeting || null, name: j.name, role: j.role, key: fromBase64(j.key), salt: fromBase64(j.salt), rounds: j.rounds, token: null };
  } catch (e) { forget(s); return null; }
}

export function forget(store = undefined) {
  const s = storage(store);
  if (s) s.removeItem(REMEMBERED_KEY);
}

// The state's meeting id seen in the room: the first one is kept with the key; another one
// means the remembered meeting is over. Returns 'kept' · 'same' · 'ended' · 'none'.
export function noteMeeting(meeting, store = undefined) {
  const s = storage(store);
  if (!s || !meeting) return 'none';
  let j;
  try { j = JSON.parse(s.getItem(REMEMBERED_KEY) || 'null'); } catch (e) { j = null; }
  if (!j) return 'none';
  if (!j.meeting) {
    j.meeting = meeting;
    s.setItem(REMEMBERED_KEY, JSON.stringify(j));
    return 'kept';
  }
  if (j.meeting === meeting) return 'same';
  forget(s);
  return 'ended';
}
