// Polls prepared with the deck on the wall (docs/protocol.md §24.3), in a card of their own
// beside the audience card: each with "Ask" (one tap) and "Remove"; a small editor adds one
// in seconds — the question on the first line, one answer a line (a leading * marks the
// correct one), "yes/no" for a yes/no question, no answers for an open question. The card
// is redrawn only when the list changes, so typing is never lost to a state push.
import { C } from '../core/protocol.js';
import { Writer } from '../core/wire.js';
import { app, canDrive, isModerator } from './state.js';
import { toast } from './dom.js';

const letter = (i) => String.fromCharCode(65 + i);
let shownKey = null;

const hexToBytes = (h) => new Uint8Array((h.match(/../g) || []).map((x) => parseInt(x, 16)));

/// A draft from the editor's text, or an error message.
export function parseDraft(text) {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l);
  if (!lines.length) return { error: 'Write the question on the first line.' };
  const [question, ...rest] = lines;
  if (rest.length === 1 && /^yes\s*\/\s*no$/i.test(rest[0])) return { draft: { question, kind: 'yesno', answers: ['Yes', 'No'], correct: null } };
  if (!rest.length) return { draft: { question, kind: 'text', answers: [], correct: null } };
  let correct = null;
  const answers = rest.map((l, i) => { if (l.startsWith('*')) { correct = i; return l.slice(1).trim(); } return l; });
  if (answers.length < 2 || answers.length > 6) return { error: 'A multiple-choice poll has 2 to 6 answers, one a line.' };
  return { draft: { question, kind: 'choice', answers, correct } };
}

function save(content, list) {
  const json = new TextEncoder().encode(JSON.stringify(list.map((d) => ({ question: d.question, kind: d.kind, answers: d.answers, correct: d.correct ?? null }))));
  return app.link.request(C.pollPrepare, new Writer().bytes(hexToBytes(content)).bytes(json).done());
}

function card(anchor) {
  let c = document.getElementById('prepared-card');
  if (c) return c;
  c = document.createElement('section');
  c.id = 'prepared-card';
  c.className = 'card';
  c.setAttribute('aria-label', 'Prepared polls');
  anchor.after(c);
  return c;
}

export function renderPrepared(anchor) {
  const s = app.state;
  const a = s && s.audience;
  const scr = s && s.screen;
  const lead = !!s && (canDrive() || isModerator());
  const content = scr && scr.content && scr.content.kind === 'pdf' ? scr.content.id : null;
  const c = card(anchor);
  c.hidden = !a || !content || !lead || !a.prepared;
  if (c.hidden) { shownKey = null; return; }
  const list = a.prepared;
  const key = content + JSON.stringify(list);
  if (key === shownKey) return;
  shownKey = key;
  const h = document.createElement('h2');
  h.textContent = 'Prepared polls · ' + scr.content.name;
  const ol = document.createElement('ol');
  ol.id = 'prepared-list';
  list.forEach((d, i) => {
    const li = document.createElement('li');
    const answers = d.kind === 'text' ? ' (open)' : ' — ' + d.answers.map((x, j) => letter(j) + ' ' + x + (d.correct === j ? ' ✓' : '')).join(', ');
    li.textContent = d.question + answers + ' ';
    const ask = document.createElement('button');
    ask.type = 'button'; ask.textContent = 'Ask'; ask.className = 'primary'; ask.dataset.ask = String(i);
    ask.onclick = () => app.link.request(C.pollAskPrepared, new Writer().bytes(hexToBytes(content)).u16(i).done()).catch((e) => toast(e.message || String(e)));
    const rm = document.createElement('button');
    rm.type = 'button'; rm.textContent = 'Remove';
    rm.onclick = () => save(content, list.filter((_, j) => j !== i)).catch((e) => toast(e.message || String(e)));
    li.append(ask, rm);
    ol.append(li);
  });
  const form = document.createElement('form');
  form.id = 'prepare-form';
  const ta = document.createElement('textarea');
  ta.id = 'prepare-text';
  ta.rows = 4;
  ta.placeholder = 'Question?\nAnswer A\n*Answer B (the correct one)\nAnswer C';
  ta.setAttribute('aria-label', 'A new poll: the question, then one answer a line');
  const add = document.createElement('button');
  add.type = 'submit'; add.textContent = 'Add poll'; add.id = 'prepare-add';
  form.append(ta, add);
  form.onsubmit = (e) => {
    e.preventDefault();
    const r = parseDraft(ta.value);
    if (r.error) { toast(r.error); return; }
    save(content, [...list, r.draft]).then(() => { ta.value = ''; }).catch((err) => toast(err.message || String(err)));
  };
  c.replaceChildren(h, ol, form);
}
