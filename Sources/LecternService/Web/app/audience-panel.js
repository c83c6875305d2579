// The audience card for the presenter with the floor and the moderator (§24): viewers, the
// navigation lock, the current poll's live results with close / show results / show answer,
// and the audience's questions ranked by votes with answered / on the wall / hide.
import { C, AUDIENCE_SET } from '../core/protocol.js';
import { Writer } from '../core/wire.js';
import { app, canDrive, isModerator } from './state.js';
import { toast } from './dom.js';
import { renderPrepared } from './prepared-polls.js';

const letter = (i) => String.fromCharCode(65 + i);

function card() {
  let c = document.getElementById('audience-card');
  if (c) return c;
  c = document.createElement('section');
  c.id = 'audience-card';
  c.className = 'card';
  c.setAttribute('aria-label', 'Audience');
  const cols = document.querySelectorAll('#room-view .col');
  (cols[cols.length - 1] || document.getElementById('room-view')).append(c);
  return c;
}

function send(command, body) {
  if (!app.link) return;
  app.link.request(command, body).catch((e) => toast(e.message || String(e)));
}

function button(label, onclick, cls = '') {
  const b = document.createElement('button');
  b.type = 'button'; b.textContent = label; b.className = cls; b.onclick = onclick;
  return b;
}

export function renderAudience() {
  const s = app.state;
  // Every presenter and the moderator see it (the state carries it to them); the buttons
  // are for whoever has the floor and the moderator (the appliance says so to others).
  const lead = !!s && (canDrive() || isModerator());
  const a = s && s.audience;
  const c = card();
  c.hidden = !a;
  c.classList.toggle('lead', lead);
  renderPrepared(c);
  if (c.hidden) return;
  const h = document.createElement('h2');
  h.textContent = 'Audience · ' + a.viewers + ' following';
  const lock = button(a.locked ? 'Let them browse' : 'Lock to live',
    () => send(C.audienceSet, new Uint8Array([a.locked ? AUDIENCE_SET.unlock : AUDIENCE_SET.lock])));
  const dl = button(a.download ? 'Stop downloads' : 'Allow download of the slides',
    () => send(C.audienceSet, new Uint8Array([a.download ? AUDIENCE_SET.revokeDownload : AUDIENCE_SET.allowDownload])));
  const parts = [h, lock, dl];
  const p = a.poll;
  if (p) {
    const ph = document.createElement('h3');
    ph.textContent = 'Poll: ' + p.question + ' (' + p.total + (p.open ? ', open)' : ', closed)');
    parts.push(ph);
    const ul = document.createElement('ul');
    if (p.counts) p.answers.forEach((ans, i) => {
      const li = document.createElement('li');
      li.textContent = letter(i) + ' ' + ans + ': ' + p.counts[i] + (p.correct === i ? ' ✓' : '');
      ul.append(li);
    });
    (p.texts || []).forEach((t) => { const li = document.createElement('li'); li.textContent = t; ul.append(li); });
    parts.push(ul);
    // The state carries the newest answers only (§24.6); the rest is fetched with audience-fetch.
    if (p.textCount > (p.texts || []).length) {
      const more = document.createElement('p');
      more.textContent = 'The newest ' + p.texts.length + ' of ' + p.textCount + ' answers.';
      parts.push(more);
    }
    const show = (results, answer) => new Writer().u32(p.id).u8((results ? 1 : 0) | (answer ? 2 : 0)).u8(0).done();
    if (p.open) parts.push(button('Close the poll', () => send(C.pollClose, new Writer().u32(p.id).done())));
    parts.push(button(p.showResults ? 'Hide results' : 'Show results', () => send(C.pollShow, show(!p.showResults, false))));
    if (p.correct !== null && p.correct !== undefined) parts.push(button('Show answer', () => send(C.pollShow, show(true, true))));
  }
  const qh = document.createElement('h3');
  qh.textContent = 'Questions';
  const ol = document.createElement('ol');
  ol.id = 'audience-questions';
  for (const q of a.questions) {
    const li = document.createElement('li');
    li.textContent = '▲' + q.votes + ' ' + q.text + (q.name ? ' — ' + q.name : '') + (q.hidden ? ' (hidden)' : '') + (q.answered ? ' (answered)' : '');
    const mark = (action) => () => send(C.questionMark, new Writer().u32(q.id).u8(action).done());
    li.append(button('Answered', mark(1)), button(a.wallQuestion === q.id ? 'Off the wall' : 'On the wall', mark(a.wallQuestion === q.id ? 3 : 2)), button('Hide', mark(4)));
    ol.append(li);
  }
  parts.push(qh, ol);
  if (a.questionCount > a.questions.length) {
    const more = document.createElement('p');
    more.textContent = 'The first ' + a.questions.length + ' of ' + a.questionCount + ' questions.';
    parts.push(more);
  }
  c.replaceChildren(...parts);
}
