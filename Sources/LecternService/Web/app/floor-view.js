// The floor card: who has the floor, this page's place in it, hand-over (the holder lends
// the floor to another device, §9.5), and the floor's notes (floor-granted,
// floor-withdrawn) in words.

import { $, toast } from './dom.js';
import { app, me, isModerator, deviceName } from './state.js';
import { act } from './notices.js';
import { onFloorChange } from './go-live.js';
import { SIGNAL } from '../core/protocol.js';

// The hand-over row, made once under the floor card's buttons: whom to lend the floor to
// and a Hand over button (signal 0xFD with the device's id).
function handoverRow() {
  let row = $('handover');
  if (row) return row;
  row = document.createElement('div');
  row.id = 'handover';
  row.className = 'handover';
  row.hidden = true;
  const label = document.createElement('label');
  label.htmlFor = 'handover-to';
  label.textContent = 'Hand the floor to';
  const pick = document.createElement('select');
  pick.id = 'handover-to';
  const go = document.createElement('button');
  go.type = 'button';
  go.id = 'handover-go';
  go.textContent = 'Hand over';
  go.addEventListener('click', () => {
    const to = Number(pick.value);
    if (!(to > 0)) return;
    act(async () => {
      await app.link.control(SIGNAL.handOver, to);
      toast(deviceName(to) + ' drives the screen now; Take it back ends the loan.', 'good');
    });
  });
  row.append(label, pick, go);
  const anchor = $('floor-takeback').parentNode;
  anchor.parentNode.insertBefore(row, anchor.nextSibling);
  return row;
}

function renderHandover(holding, lent) {
  const s = app.state, id = me();
  const others = s.devices.filter((d) => d.id !== id && d.connected);
  const row = handoverRow();
  row.hidden = !(holding && !lent && others.length > 0);
  if (row.hidden) return;
  const pick = $('handover-to');
  const chosen = pick.value;
  const wanted = others.map((d) => d.id + ':' + d.name).join('|');
  if (pick.dataset.list !== wanted) {
    pick.replaceChildren(...others.map((d) => {
      const o = document.createElement('option');
      o.value = String(d.id);
      o.textContent = d.name;
      return o;
    }));
    pick.dataset.list = wanted;
    if (others.some((d) => String(d.id) === chosen)) pick.value = chosen;
  }
}

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
  renderHandover(holding, f.delegate !== null);
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
