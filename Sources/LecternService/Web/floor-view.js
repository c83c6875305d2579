// The floor card: who has the floor, this page's place in it, and the floor's notes
// (floor-granted, floor-withdrawn) in words.

import { $ } from './dom.js';
import { app, me, isModerator, deviceName } from './state.js';
import { toast } from './notices.js';
import { onFloorChange } from './go-live.js';

function floorSummary() {
  const s = app.state, f = s.floor, id = me();
  const queuePos = f.queue.indexOf(id);
  const grace = () => {
    if (f.graceRemainingMs == null) return '';
    const left = Math.max(0, Math.ceil((f.graceRemainingMs - (Date.now() - app.stateAt)) / 1000));
    return ' (reconnecting, ' + left + ' s left)';
  };
  if (f.holder === null) {
    if (queuePos >= 0) return 'You are number ' + (queuePos + 1) + ' in the queue.';
    return 'Nobody has the floor.';
  }
  if (f.delegate === id) return 'You have the floor, on loan from ' + deviceName(f.holder) + '.';
  if (f.holder === id) {
    return f.delegate !== null ? 'You have the floor, lent to ' + deviceName(f.delegate) + '.' : 'You have the floor.';
  }
  let text = deviceName(f.holder) + ' has the floor' + grace() + '.';
  if (f.delegate !== null) text += ' ' + deviceName(f.delegate) + ' drives it on loan.';
  if (queuePos >= 0) text += ' You are number ' + (queuePos + 1) + ' in the queue.';
  return text;
}

export function renderFloor() {
  const s = app.state;
  if (!s || !app.session) return;
  const f = s.floor, id = me();
  const queued = f.queue.includes(id);
  const holding = f.holder === id, borrowing = f.delegate === id;
  $('floor-status').textContent = floorSummary();
  $('floor-status').className = 'floor-status' + (holding || borrowing ? ' mine' : queued ? ' queued' : '');
  const moderated = s.floorMode === 'moderated';
  const req = $('floor-request');
  req.hidden = holding || borrowing || queued;
  req.textContent = moderated && !isModerator() ? 'Ask for the floor' : 'Take the floor';
  const rel = $('floor-release');
  rel.hidden = !(holding || borrowing || queued);
  rel.textContent = borrowing ? 'Give the floor back' : queued ? 'Leave the queue' : 'Release the floor';
  $('floor-takeback').hidden = !(holding && f.delegate !== null);
  const dnd = f.doNotDisturb && !isModerator() && !holding && !borrowing;
  $('dnd-note').hidden = !dnd;
  $('mode-note').textContent = moderated ? 'Moderated room: the moderator decides who presents.' : 'Open room: whoever takes the floor last has it (the newest request wins).';
}

// floor-granted and floor-withdrawn (§6.3), in words; `who` is the device that caused it.
const GRANTED = {
  1: () => 'You have the floor.',
  2: (who) => (who || 'The moderator') + ' gave you the floor.',
  3: (who) => (who || 'The holder') + ' lent you the floor: you drive the screen now.',
  4: () => 'The floor is back with you.',
  5: () => 'You have the floor again.',
  6: () => "It's your turn: you have the floor.",
};

const WITHDRAWN = {
  2: (who) => (who || 'The moderator') + ' took the floor from you.',
  3: (who) => (who || 'Someone else') + ' took the floor.',
  4: () => 'The moderator gave the floor to someone else.',
  5: () => 'The loan of the floor ended.',
  6: () => 'The floor you had on loan ended.',
  7: (who) => (who || 'The moderator') + ' turned down your request for the floor.',
};

export function onFloorNote(granted, reason, by) {
  const f = (granted ? GRANTED : WITHDRAWN)[reason];
  const who = by ? deviceName(by) : null;
  onFloorChange(granted);
  toast(f ? f(who) : granted ? 'You have the floor.' : 'You lost the floor.', granted ? 'good' : 'info');
}
