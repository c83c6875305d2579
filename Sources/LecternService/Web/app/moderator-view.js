// The moderator's card: the queue for the floor and the people in the room, with the
// moderator's buttons. On a laptop it leads its column (presenter-layout.css, body
// .moderating), so the queue is in view, not below the fold under the toast. Grant over
// someone who is live asks first; a loan of the floor can be taken back from here.

import { $ } from './dom.js';
import { app, me, isModerator, deviceName } from './state.js';
import { renderEndMeeting } from './end-meeting.js';
import { MODERATE, SIGNAL } from '../core/protocol.js';
import { confirmTakeover } from './confirm-live.js';

// Grant: taking the wall from a live presenter (someone else holding the floor) asks
// first, naming who; cancelled, nothing is sent.
export async function grantFloor(device) {
  const f = app.state && app.state.floor;
  const live = f ? f.holder : null;
  if (live !== null && live !== device && live !== me()) {
    const question = deviceName(live) + ' is live. Give the floor to ' + deviceName(device) + '? ' +
      deviceName(live) + ' loses it and the screen goes back to idle.';
    if (!(await confirmTakeover(question, 'Give it'))) return undefined;
  }
  return app.link.moderate(MODERATE.grant, device);
}

// Take back (signal 0xFE, §9.5): a loan of the floor ends; the holder drives again.
export function takeBackLoan() { return app.link.control(SIGNAL.takeBack); }

export function renderModerator() {
  const card = $('mod-card');
  card.hidden = !isModerator();
  document.body.classList.toggle('moderating', isModerator());
  if (!isModerator() || !app.state) return;
  renderEndMeeting(card);
  const s = app.state, f = s.floor, id = me();
  $('dnd').checked = f.doNotDisturb;

  const q = $('queue-list');
  q.replaceChildren();
  f.queue.forEach((d, i) => {
    const li = document.createElement('li');
    li.className = 'person';
    li.append(personLabel((i + 1) + '. ' + deviceName(d), ''));
    li.append(actions(d, [['grant', 'Grant', 'primary'], ['reject', 'Reject', '']]));
    q.append(li);
  });
  $('queue-empty').hidden = f.queue.length > 0;

  const list = $('device-list');
  list.replaceChildren();
  for (const d of s.devices) {
    const li = document.createElement('li');
    li.className = 'person';
    let status = d.role === 'moderator' ? 'moderator' : 'presenter';
    if (f.holder === d.id) status += f.delegate !== null ? ' · has the floor (lent)' : ' · has the floor';
    if (f.delegate === d.id) status += ' · drives on loan';
    const qp = f.queue.indexOf(d.id);
    if (qp >= 0) status += ' · queued #' + (qp + 1);
    if (!d.connected) status += ' · reconnecting';
    li.append(personLabel(d.name + (d.id === id ? ' (you)' : ''), status));
    const acts = [];
    if (f.holder !== d.id) acts.push(['grant', 'Grant', '']);
    if (f.holder === d.id || f.delegate === d.id) acts.push(['withdraw', 'Withdraw', '']);
    if (f.delegate === d.id) acts.push(['takeback', 'Take back', '']);
    if (qp >= 0) acts.push(['reject', 'Reject', '']);
    if (d.id !== id) acts.push(['kick', 'Remove', 'danger']);
    li.append(actions(d.id, acts));
    li.dataset.device = String(d.id);
    list.append(li);
  }
  $('people-count').textContent = String(s.devices.length);
}

function personLabel(name, status) {
  const div = document.createElement('div');
  div.className = 'person-info';
  const n = document.createElement('span');
  n.className = 'person-name';
  n.textContent = name;
  div.append(n);
  if (status) {
    const st = document.createElement('span');
    st.className = 'muted';
    st.textContent = status;
    div.append(st);
  }
  return div;
}

function actions(device, list) {
  const div = document.createElement('div');
  div.className = 'actions';
  for (const [action, label, cls] of list) {
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.action = action;
    b.dataset.device = String(device);
    b.className = cls;
    b.textContent = app.armed.has('kick' + device) && action === 'kick' ? 'Sure? Remove' : label;
    div.append(b);
  }
  return div;
}
