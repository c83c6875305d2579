// The wall's panes (docs/protocol.md §9.7): a map of the wall drawn from the state's
// `layout`, where the moderator picks the layout and places presenters and files in panes
// (drag and drop with a mouse, or tap a chip then tap a pane, which is also how a phone
// does it), and where a presenter sees which pane they drive. An open room's presenter
// adds a file beside what the wall shows. A pane playing a clip says so, and which pane
// has the sound; the moderator drops a clip on a pane to play it there (pane-play). The
// card builds itself: views.js calls renderWall() with the other cards.

import { app, me, isModerator, deviceName } from './state.js';
import { C, LAYOUT, PANE_ACTION } from '../core/protocol.js';
import { encodePresent } from '../core/wire.js';
import { fromHex } from '../core/bytes.js';
import { act } from './notices.js';
import { toast } from './dom.js';

const NAMES = { full: 'Full', split: 'Side by side', stack: 'Stacked', quad: 'Four', pip: 'Picture in picture' };
const WHERE = {
  full: ['the whole wall'],
  split: ['left', 'right'],
  stack: ['top', 'bottom'],
  quad: ['top left', 'top right', 'bottom left', 'bottom right'],
  pip: ['the whole wall', 'the small corner pane'],
};

// The chip picked for tap-to-place: { device } or { content }, or null.
let picked = null;
let card = null;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function build() {
  if (card) return card;
  const stage = document.querySelector('#room-view .card.stage');
  if (!stage) return null;
  const css = document.createElement('link');
  css.rel = 'stylesheet';
  css.href = '/layout-view.css';
  document.head.append(css);
  card = el('section', 'card wall-layout');
  card.id = 'wall-card';
  card.setAttribute('aria-label', "The wall's panes");
  card.append(el('h2', '', 'The wall'));
  const you = el('p', 'muted'); you.id = 'wall-you';
  const layouts = el('div', 'wall-layouts'); layouts.id = 'wall-layouts';
  layouts.setAttribute('role', 'group'); layouts.setAttribute('aria-label', 'Layout');
  for (const name of Object.keys(LAYOUT)) {
    const b = el('button', '', NAMES[name]);
    b.type = 'button';
    b.dataset.wallLayout = name;
    layouts.append(b);
  }
  const map = el('div', 'wall-map'); map.id = 'wall-map';
  const tray = el('div', 'wall-tray'); tray.id = 'wall-tray';
  const hint = el('p', 'muted wall-hint'); hint.id = 'wall-hint';
  card.append(you, layouts, map, tray, hint);
  stage.insertAdjacentElement('afterend', card);
  card.addEventListener('click', onClick);
  card.addEventListener('dragstart', onDragStart);
  card.addEventListener('dragover', (e) => { if (e.target.closest('.wall-pane')) e.preventDefault(); });
  card.addEventListener('drop', onDrop);
  return card;
}

// The pane this device drives: its own, else the main one when it is the floor's driver.
export function myPane(s) {
  if (!s || !s.layout) return null;
  const own = s.layout.panes.find((p) => !p.main && p.driver === me());
  if (own) return own;
  return s.floor.driver === me() ? s.layout.panes.find((p) => p.main) : null;
}

export function renderWall() {
  const s = app.state;
  const c = build();
  if (!c) return;
  const layout = s && s.layout;
  const mod = isModerator();
  const open = !!s && s.floorMode === 'open';
  const mine = myPane(s);
  // A presenter sees the wall's panes when there are several, or (an open room) when
  // someone else's page is up and theirs could go beside it; a moderator always.
  const othersUp = !!s && s.floor.driver !== null && s.floor.driver !== me() && !!s.screen.content;
  c.hidden = !layout || !app.session || (!mod && layout.kind === 'full' && !(open && !mine && othersUp));
  if (c.hidden) return;

  const where = (p) => (WHERE[layout.kind] || [])[p.index] || 'pane ' + p.index;
  document.getElementById('wall-you').textContent = mine
    ? (layout.kind === 'full' ? 'You drive the wall.' : 'You drive pane ' + mine.index + ' (' + where(mine) + '): your buttons turn its pages.')
    : 'You drive no pane.';

  const layouts = document.getElementById('wall-layouts');
  layouts.hidden = !mod;
  for (const b of layouts.querySelectorAll('button')) b.setAttribute('aria-pressed', String(b.dataset.wallLayout === layout.kind));

  const map = document.getElementById('wall-map');
  map.replaceChildren();
  for (const p of layout.panes) {
    const d = el('div', 'wall-pane');
    d.dataset.pane = String(p.index);
    d.style.left = (p.rect.x * 100) + '%';
    d.style.top = (p.rect.y * 100) + '%';
    d.style.width = (p.rect.width * 100) + '%';
    d.style.height = (p.rect.height * 100) + '%';
    if (mine && mine.index === p.index) d.classList.add('mine');
    if (picked) d.classList.add('target');
    d.draggable = mod && layout.panes.length > 1;
    const title = el('div', 'wall-pane-title', 'Pane ' + p.index + (p.main ? ' · main' : ''));
    const sc = p.screen;
    const shows = sc.clip ? clipLine(sc, p.index === layout.soundPane)
      : sc.content ? sc.content.name + (sc.page ? ' · ' + sc.page + '/' + sc.pageCount : '') : 'empty';
    const what = el('div', 'wall-pane-shows', shows + (sc.blank !== 'none' ? ' (blank)' : ''));
    d.classList.toggle('clip', !!sc.clip);
    // A driver whose connection dropped keeps the pane for the grace period (§9.6): said so.
    const away = p.graceRemainingMs !== null && p.graceRemainingMs !== undefined ? ' — away, back within ' + Math.ceil(p.graceRemainingMs / 1000) + ' s or the pane is emptied' : '';
    const who = el('div', 'wall-pane-driver muted', p.driver === null ? 'nobody drives it' : (p.driver === me() ? 'you' : deviceName(p.driver)) + away);
    d.append(title, what, who);
    if (mod) {
      const acts = el('div', 'wall-pane-actions');
      if (layout.panes.length > 1) acts.append(button('Full screen', { wallFull: p.index }));
      acts.append(button('Clear', { wallClear: p.index }));
      if (!p.main && p.driver !== null) acts.append(button('Unassign', { wallUnassign: p.index }));
      d.append(acts);
    }
    map.append(d);
  }
  map.classList.toggle('pip', layout.kind === 'pip');

  // The tray: what can be placed (moderator), or added beside (an open room's presenter).
  const tray = document.getElementById('wall-tray');
  tray.replaceChildren();
  const pdfs = app.files.filter((f) => f.kind !== 'clip');
  if (mod) {
    for (const dev of s.devices.filter((x) => x.role === 'presenter' && x.connected)) tray.append(chip(dev.name, { chipDevice: dev.id }));
    for (const f of app.files) tray.append(chip(f.name, { chipContent: f.id }));
  } else if (open && !mine) {
    for (const f of pdfs) tray.append(button('Add ' + f.name + ' beside', { wallAdd: f.id }));
  }
  const hint = document.getElementById('wall-hint');
  hint.textContent = mod
    ? (picked ? 'Now tap the pane to put it in.' : 'Drag a person or a file onto a pane (or tap it, then the pane). Drag a pane onto another to swap them.')
    : (open && !mine && pdfs.length ? 'Adding puts your file beside what the wall shows, in a pane you drive.' : '');
}

// A pane's clip in a word: "▶ intro.mp4 · playing · sound" (the wall has one sound output).
export function clipLine(sc, sound) {
  return '▶ ' + sc.content.name + ' · ' + sc.clip.state + ' · ' + (sound ? 'sound' : 'muted');
}

function button(text, data) {
  const b = el('button', '', text);
  b.type = 'button';
  Object.assign(b.dataset, Object.fromEntries(Object.entries(data).map(([k, v]) => [k, String(v)])));
  return b;
}

function chip(text, data) {
  const b = button(text, data);
  b.classList.add('chip');
  b.draggable = true;
  const key = data.chipDevice !== undefined ? 'd' + data.chipDevice : 'c' + data.chipContent;
  if (picked && picked.key === key) b.classList.add('picked');
  return b;
}

function setPane(pane, bytes) {
  return act(() => app.link.request(C.paneSet, new Uint8Array([pane, ...bytes])));
}

function u32(n) { return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]; }

function place(pane, what) {
  if (what.device !== undefined) return setPane(pane, [PANE_ACTION.assign, what.device]);
  if (what.content !== undefined) {
    const f = app.files.find((x) => x.id === what.content);
    if (f && f.kind === 'clip') {
      const loop = document.getElementById('clip-loop');
      return act(() => app.link.request(C.panePlay, new Uint8Array([pane, ...fromHex(what.content), loop && loop.checked ? 1 : 0])));
    }
    return setPane(pane, [PANE_ACTION.present, ...fromHex(what.content), ...u32(1)]);
  }
  if (what.pane !== undefined && what.pane !== pane) return setPane(what.pane, [PANE_ACTION.swap, pane]);
  return Promise.resolve();
}

function onClick(e) {
  const b = e.target.closest('button');
  const d = b ? b.dataset : {};
  if (d.wallLayout) return act(() => app.link.request(C.layoutSet, new Uint8Array([LAYOUT[d.wallLayout]])));
  if (d.wallFull !== undefined) return setPane(Number(d.wallFull), [PANE_ACTION.full]);
  if (d.wallClear !== undefined) return setPane(Number(d.wallClear), [PANE_ACTION.clear]);
  if (d.wallUnassign !== undefined) return setPane(Number(d.wallUnassign), [PANE_ACTION.assign, 0]);
  if (d.wallAdd) return act(() => app.link.request(C.wallAdd, encodePresent(d.wallAdd, 1)));
  if (d.chipDevice !== undefined || d.chipContent !== undefined) {
    const key = d.chipDevice !== undefined ? 'd' + d.chipDevice : 'c' + d.chipContent;
    picked = picked && picked.key === key ? null
      : { key, device: d.chipDevice !== undefined ? Number(d.chipDevice) : undefined, content: d.chipContent };
    return renderWall();
  }
  const pane = e.target.closest('.wall-pane');
  if (pane && picked && !b) {
    const what = picked;
    picked = null;
    renderWall();
    place(Number(pane.dataset.pane), what);
  }
}

function onDragStart(e) {
  const t = e.target;
  if (!t || !t.dataset) return;
  let v = null;
  if (t.dataset.chipDevice !== undefined) v = 'device:' + t.dataset.chipDevice;
  else if (t.dataset.chipContent !== undefined) v = 'content:' + t.dataset.chipContent;
  else if (t.dataset.pane !== undefined) v = 'pane:' + t.dataset.pane;
  if (v) e.dataTransfer.setData('text/plain', v);
}

function onDrop(e) {
  const pane = e.target.closest('.wall-pane');
  if (!pane) return;
  e.preventDefault();
  const [kind, value] = (e.dataTransfer.getData('text/plain') || '').split(':');
  const to = Number(pane.dataset.pane);
  if (kind === 'device') place(to, { device: Number(value) });
  else if (kind === 'content') place(to, { content: value });
  else if (kind === 'pane') place(to, { pane: Number(value) });
  else toast('Drop a person, a file or another pane here.', 'info');
}
