// What a tab keeps of its session across a reload (in sessionStorage): the name, the role,
// the passcode's derived key with its salt and rounds (never the passcode), the resume
// token and the files it uploaded. Text in, text out: the storage is the caller's.

import { toBase64, fromBase64 } from './bytes.js';

export const SESSION_KEY = 'lectern.session';

// The text to keep for `session` ({ name, role, key, salt, rounds, token }) and its files.
export function sessionText(session, files) {
  return JSON.stringify({
    name: session.name, role: session.role, key: toBase64(session.key), salt: toBase64(session.salt), rounds: session.rounds,
    token: session.token ? toBase64(session.token) : null, files,
  });
}

// The session kept in `text`, or null when there is none or it is damaged.
export function readSession(text) {
  try {
    const j = JSON.parse(text || 'null');
    if (!j || !j.key) return null;
    return { name: j.name, role: j.role, key: fromBase64(j.key), salt: fromBase64(j.salt), rounds: j.rounds,
             token: j.token ? fromBase64(j.token) : null, files: Array.isArray(j.files) ? j.files : [] };
  } catch (e) { return null; }
}
