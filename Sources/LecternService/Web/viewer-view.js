// The audience page (docs/protocol.md §24): join as a viewer (role 3) with the room or
// audience passcode (derived with the presenter's parameters), follow the wall (the slide
// at this device's size, blank when the wall is), browse when unlocked, answer the poll,
// ask and up-vote questions. A reload joins again with the kept key and token.
import { C, ERR } from './protocol.js';
import { Link, ConnectionLost } from './link.js';
import { deriveKey } from './crypto.js';
import { Writer } from './wire.js';
import { renderPoll } from './poll-view.js';

const VIEWER = 3;
const KEY = 'lectern-viewer';
const $ = (id) => document.getElementById(id);
const app = { link: null, state: null, token: null, key: null, name: '', shown: '', own: null, mine: {} };
window.LecternViewer = app;

function toast(msg) {
  const t = $('toast');
  t.textContent = msg;
  t.classList.add('show');
  setTimeout(() => t.classList.remove('show'), 4000);
}

function wsURL() { return (location.protocol === 'https:' ? 'wss:' : 'ws:') + '//' + location.host + '/ws'; }
const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const unhex = (s) => new Uint8Array((s.match(/../g) || []).map((x) => parseInt(x, 16)));

async function connect() {
  const link = new Link(wsURL(), {
    onState: (s) => { app.state = s; render(); },
    onFloorNote: () => {},
    onServerError: (e) => toast(e.message),
    onClose: () => { if (app.link === link && app.key !== null) setTimeout(join, 1000); },
  });
  app.link = link;
  const hello = await link.open();
  $('room-name').textContent = hello.room;
  $('join-room').textContent = hello.room;
  return hello;
}

async function join(passcode) {
  let hello;
  try { hello = await connect(); } catch (e) { $('join-error').textContent = "Can't reach the appliance."; return; }
  const p = hello.presenter;
  if (passcode !== undefined) {
    app.key = passcode ? await deriveKey(passcode, p.salt, p.rounds) : new Uint8Array(0);
  }
  try {
    const ok = await app.link.register(VIEWER, app.name, app.key && app.key.length ? app.key : null, app.token);
    app.token = ok.token;
    sessionStorage.setItem(KEY, JSON.stringify({ key: hex(app.key || []), token: hex(ok.token || []), name: app.name }));
    $('join-view').hidden = true;
    $('audience-view').hidden = false;
    document.body.dataset.phase = 'in';
  } catch (e) {
    app.key = null;
    sessionStorage.removeItem(KEY);
    $('join-error').textContent = e.message || String(e);
  }
}

function send(command, body, done) {
  app.link.request(command, body).then(() => { if (done) done(); render(); }).catch((e) => toast(e.message || String(e)));
}

async function showSlide(content, page) {
  const width = Math.min(1920, Math.round(($('slide').parentElement.clientWidth || 360) * (window.devicePixelRatio || 1)));
  const key = content + '/' + page + '/' + width;
  if (app.shown === key) return;
  app.shown = key;
  try {
    const img = await app.link.pagePreview(content, page, width);
    if (app.shown !== key) return;
    const url = URL.createObjectURL(img.png);
    const el = $('slide');
    el.onload = () => URL.revokeObjectURL(url);
    el.src = url;
    el.dataset.page = String(page);
  } catch (e) { app.shown = ''; }
}

function render() {
  const s = app.state;
  if (!s) return;
  const a = s.audience || { locked: true, questions: [], poll: null, download: false };
  const scr = s.screen;
  const live = scr.content && scr.content.kind === 'pdf' ? scr.page : 0;
  if (a.locked || app.own === null) app.own = null;
  const page = app.own || live;
  const blank = scr.blank !== 'none';
  $('slide').classList.toggle('blank', blank || !live);
  $('slide-note').textContent = blank ? 'The wall is blanked.' : !live ? 'Nothing is shown yet.' :
    'Slide ' + page + ' of ' + scr.pageCount + (app.own ? ' (you are browsing)' : '');
  $('live-note').textContent = live ? (app.own ? 'browsing' : 'live') : '';
  if (live && !blank) showSlide(scr.content.id, page);
  $('browse').hidden = a.locked || !live;
  $('download').hidden = !a.downloadURL;
  if (a.downloadURL) $('download').href = a.downloadURL;
  renderPoll($('poll'), a.poll, app.mine, send);
  const list = $('questions');
  list.replaceChildren(...(a.questions || []).map((q) => {
    const li = document.createElement('li');
    li.textContent = q.text + (q.name ? ' — ' + q.name : '') + (q.answered ? ' (answered)' : '');
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = '▲ ' + q.votes;
    b.onclick = () => send(C.questionVote, new Writer().u32(q.id).done());
    li.append(b);
    return li;
  }));
}

function browse(delta) {
  const s = app.state;
  if (!s || !s.screen.content) return;
  const from = app.own || s.screen.page;
  app.own = Math.max(1, Math.min(s.screen.pageCount, from + delta));
  render();
}

window.addEventListener('DOMContentLoaded', async () => {
  $('join-form').onsubmit = (e) => {
    e.preventDefault();
    app.name = $('v-name').value.trim();
    $('join-error').textContent = '';
    join($('v-passcode').value);
  };
  $('ask-form').onsubmit = (e) => {
    e.preventDefault();
    const text = $('ask-text').value.trim();
    if (!text) return;
    const body = new Writer().u8($('ask-named').checked ? 1 : 0).string16(text).done();
    send(C.questionAsk, body, () => { $('ask-text').value = ''; toast('Question sent.'); });
  };
  $('browse-prev').onclick = () => browse(-1);
  $('browse-next').onclick = () => browse(1);
  $('back-live').onclick = () => { app.own = null; render(); };
  const kept = JSON.parse(sessionStorage.getItem(KEY) || 'null');
  if (kept) {
    app.key = unhex(kept.key); app.token = unhex(kept.token); app.name = kept.name || '';
    if (app.token.length !== 16) app.token = null;
    await join();
  } else {
    try { await connect(); } catch (e) { $('join-error').textContent = "Can't reach the appliance."; }
  }
});
