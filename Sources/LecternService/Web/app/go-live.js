// Going live in one tap. Present (or Play) from someone without the floor takes the floor
// first in an open room (newest wins, §6.3), then presents; in a moderated room it asks for
// the floor and presents once the moderator grants it (the page remembers what to show).
// Taking the wall from someone who is live asks first (confirm-live.js).

import { app, canDrive, isModerator, deviceName } from './state.js';
import { act } from './notices.js';
import { toast } from './dom.js';
import { confirmTakeover } from './confirm-live.js';

// The page each deck was last shown at in this tab: Present goes back there.
export const lastPages = new Map();

export function noteScreen(s) {
  const c = s && s.screen && s.screen.content;
  if (c && c.kind === 'pdf' && s.screen.page) lastPages.set(c.id, s.screen.page);
}

// `what`: words for the toast ("plan.pdf"); `start`: the request that puts it on the wall.
export async function goLive(what, start) {
  const s = app.state;
  if (!s || canDrive()) return start();
  const f = s.floor;
  const moderated = s.floorMode === 'moderated' && !isModerator();
  if (!moderated && f.holder !== null && f.holder !== app.session.id) {
    if (!(await confirmTakeover('Take the floor from ' + deviceName(f.holder) + ' and show ' + what + '?'))) return undefined;
  }
  const ack = await app.link.requestFloor();
  if (ack.holder) return start();
  app.pendingLive = { what, start };
  toast('You asked for the floor (number ' + ack.position + ' in the queue): ' + what + ' goes on the screen as soon as you get it.', 'info');
  return undefined;
}

// floor-granted: what was waiting goes live. Turned down or left the queue: forgotten.
export function onFloorChange(granted) {
  const p = app.pendingLive;
  app.pendingLive = null;
  if (granted && p) act(p.start);
}
