// The presenter console: what the floor holder sees on their own phone or laptop while
// the wall shows the slides (docs/protocol.md §20) — the current and the next slide, the
// speaker notes large and zoomable (editable), the talk timer and the time of day, the
// slide counter with overlay steps, the controls, and an overview of every slide.
// Everyone else keeps the room view. Built here, in its own section; the page's other
// modules only call renderConsole() with the rest of the page.
//
// The console and the room's tools are one scroll (issue 27): the console comes first,
// the room view (the live picture with ink and whiteboard, the floor, files, polls and
// questions) stays below it, and the console's Ink and Polls buttons take you there in one
// tap. "Hide console" leaves the room view alone; the "Presenter console" button that
// brings it back sits in the page's flow under the picture, covering nothing.

import { $, toast } from './dom.js';
import { C, ERR, SIGNAL } from '../core/protocol.js';
import { app, isModerator, me } from './state.js';
import { act } from './notices.js';
import { drive } from './drive.js';
import { exportNotes } from './notes-files.js';
import {
  TIMER_ACTION, TIMER_MODE, encodeNotesRequest, decodeNotes, encodeNotesEdit, encodeTimer, encodeGotoLabel,
  encodeNotesHalfPreview, encodeNotesLayout, LAYOUT, clock, timerNow,
} from '../core/console-wire.js';

const FONT_KEY = 'lectern.notesFont';
const VIEW_KEY = 'lectern.consoleOff';
const THUMB_WIDTH = 320;

// The appliance makes a few pictures per connection at once (§6.9, busy beyond): the
// console asks for one at a time, the slides before the overview's thumbnails, and asks
// again a little later when the live preview's picture took the place.
const pictures = { running: false, queue: [] };
function requestPicture(make, urgent) {
  return new Promise((resolve, reject) => {
    const job = { make, resolve, reject, tries: 0 };
    if (urgent) pictures.queue.unshift(job); else pictures.queue.push(job);
    pump();
  });
}
async function pump() {
  if (pictures.running) return;
  const job = pictures.queue.shift();
  if (!job) return;
  pictures.running = true;
  try {
    job.resolve(await job.make());
  } catch (e) {
    if (e && e.code === ERR.busy && job.tries++ < 20) {
      pictures.queue.unshift(job);
      await new Promise((r) => setTimeout(r, 150));
    } else job.reject(e);
  }
  pictures.running = false;
  pump();
}

const con = {
  built: false,
  notesKey: '', notesSerial: 0, notes: null,   // the page whose notes are shown
  currentKey: '', nextKey: '', halfKey: '', serial: 0,
  urls: new Map(),                               // img id → object URL
  editing: false,
  overview: null,                                // { content, observer }
};

// Whether this device shows the console: it drives the screen as the floor holder (or the
// device the floor was handed to) and a PDF is on screen; the console opens by itself
// when the deck has notes (typed, a .pdfpc file, annotations, a beamer notes half), else
// with the "Presenter console" button; "Room view" goes back to the room's page.
export function consoleActive() {
  if (!consoleAvailable()) return false;
  const choice = sessionStorage.getItem(VIEW_KEY);
  if (choice === '1') return false;
  if (choice === '0') return true;
  return !!(app.state.console && app.state.console.hasNotes);
}

export function build() {
  if (con.built) return;
  con.built = true;
  const css = document.createElement('link');
  css.rel = 'stylesheet';
  css.href = 'console.css';
  document.head.appendChild(css);
  const root = document.createElement('section');
  root.id = 'console-view';
  root.className = 'console';
  root.hidden = true;
  root.setAttribute('aria-label', 'Presenter console');
  root.innerHTML = `
    <div class="con-bar">
      <span id="con-counter" class="con-counter" aria-live="polite"></span>
      <span id="con-timer" class="con-timer" role="timer"></span>
      <span id="con-clock" class="con-clock muted"></span>
    </div>
    <div class="con-notes" id="con-notes-card">
      <div class="con-notes-head">
        <span class="con-title">Notes</span>
        <span class="con-notes-tools">
          <button type="button" id="con-font-down" aria-label="Smaller notes">A−</button>
          <button type="button" id="con-font-up" aria-label="Larger notes">A+</button>
          <button type="button" id="con-edit">Edit</button>
          <button type="button" id="con-export" aria-label="Save the notes as a pdfpc file">Save .pdfpc</button>
        </span>
      </div>
      <label class="con-layout">Beamer notes
        <select id="con-layout" aria-label="Where this deck keeps beamer notes">
          <option value="auto">as detected</option><option value="none">none (whole page)</option>
          <option value="right">right half</option><option value="left">left half</option>
          <option value="top">top half</option><option value="bottom">bottom half</option>
        </select></label>
      <img id="con-notes-img" class="con-notes-img" alt="The notes half of this page" hidden>
      <div id="con-notes-text" class="con-notes-text" tabindex="0"></div>
      <textarea id="con-notes-input" class="con-notes-input" hidden aria-label="Notes for this page"></textarea>
    </div>
    <div class="con-slides">
      <figure class="con-current"><img id="con-current-img" alt="The slide on the wall"><figcaption id="con-current-cap">Now</figcaption></figure>
      <figure class="con-next"><img id="con-next-img" alt="The next slide"><figcaption id="con-next-cap">Next</figcaption></figure>
    </div>
    <div class="con-controls">
      <button type="button" id="con-prev" class="navbtn" aria-label="Previous slide">‹ Prev</button>
      <button type="button" id="con-next" class="navbtn primary" aria-label="Next slide">Next ›</button>
      <form id="con-goto" class="con-goto"><input id="con-goto-label" placeholder="Slide" aria-label="Go to slide (its number or label)"><button type="submit">Go</button></form>
      <span class="con-timer-tools">
        <button type="button" id="con-timer-toggle">Start</button>
        <button type="button" id="con-timer-reset">Reset</button>
        <button type="button" id="con-timer-length" aria-label="Talk length or end time">Length</button>
      </span>
      <button type="button" id="con-overview-open">Overview</button>
      <button type="button" id="con-room" class="ghost">Hide console</button>
    </div>
    <nav class="con-jump" aria-label="The room's tools">
      <button type="button" id="con-jump-ink">Ink &amp; whiteboard</button>
      <button type="button" id="con-jump-polls">Polls &amp; questions</button>
    </nav>
    <div id="con-overview" class="con-overview" hidden>
      <div class="con-overview-head"><span class="con-title">All slides</span><button type="button" id="con-overview-close">Close</button></div>
      <div id="con-grid" class="con-grid"></div>
    </div>`;
  const host = $('room-view');
  host.parentNode.insertBefore(root, host);
  const reopen = document.createElement('button');
  reopen.type = 'button';
  reopen.id = 'con-reopen';
  reopen.className = 'primary con-reopen';
  reopen.textContent = 'Presenter console';
  reopen.hidden = true;
  reopen.addEventListener('click', showConsoleAgain);
  const slot = $('console-slot');
  if (slot) slot.appendChild(reopen); else host.parentNode.insertBefore(reopen, host);
  $('con-jump-ink').addEventListener('click', () => jumpTo('preview'));
  $('con-jump-polls').addEventListener('click', () => jumpTo('audience-card'));
  $('con-prev').addEventListener('click', drive.prev);
  $('con-next').addEventListener('click', drive.next);
  $('con-next-img').addEventListener('click', drive.next);
  $('con-goto').addEventListener('submit', (e) => {
    e.preventDefault();
    const v = $('con-goto-label').value.trim();
    if (!v) return;
    act(() => app.link.request(C.gotoLabel, encodeGotoLabel(v)));
    $('con-goto-label').value = '';
    $('con-goto-label').blur();
  });
  $('con-font-up').addEventListener('click', () => zoom(1.2));
  $('con-font-down').addEventListener('click', () => zoom(1 / 1.2));
  $('con-edit').addEventListener('click', toggleEdit);
  $('con-export').addEventListener('click', exportNotes);
  $('con-layout').addEventListener('change', (e) => {
    const s = app.state;
    if (!s || !s.screen.content) return;
    act(() => app.link.request(C.notesLayout, encodeNotesLayout(s.screen.content.id, LAYOUT[e.target.value])));
  });
  $('con-timer-toggle').addEventListener('click', () => {
    const t = app.state && app.state.console ? app.state.console.timer : null;
    act(() => app.link.request(C.timer, encodeTimer(t && t.running ? TIMER_ACTION.pause : TIMER_ACTION.start)));
  });
  $('con-timer-reset').addEventListener('click', () => act(() => app.link.request(C.timer, encodeTimer(TIMER_ACTION.reset))));
  $('con-timer-length').addEventListener('click', askLength);
  $('con-overview-open').addEventListener('click', openOverview);
  $('con-overview-close').addEventListener('click', closeOverview);
  $('con-room').addEventListener('click', () => { sessionStorage.setItem(VIEW_KEY, '1'); renderConsole(); });
  applyFont();
  setInterval(tick, 500);
}

// One tap to the room's tools below the console: the live picture (its ink bar under it)
// or the audience card (polls and questions).
function jumpTo(id) {
  const el = $(id);
  if (el && el.scrollIntoView) el.scrollIntoView({ block: 'start', behavior: 'instant' });
}

function zoom(f) {
  const size = Math.max(14, Math.min(64, Math.round(fontSize() * f)));
  localStorage.setItem(FONT_KEY, String(size));
  applyFont();
}
function fontSize() { return Number(localStorage.getItem(FONT_KEY)) || 24; }
function applyFont() { const el = $('con-notes-text'); if (el) el.style.fontSize = fontSize() + 'px'; }

function askLength() {
  const v = prompt('Talk length in minutes, or an end time like 14:30 (empty: count up):', '20');
  if (v === null) return;
  const s = v.trim();
  let body;
  if (!s) body = encodeTimer(TIMER_ACTION.set, TIMER_MODE.elapsed);
  else if (/^\d{1,2}:\d{2}$/.test(s)) {
    const [h, m] = s.split(':').map(Number);
    const end = new Date();
    end.setHours(h, m, 0, 0);
    if (end.getTime() <= Date.now()) end.setDate(end.getDate() + 1);
    body = encodeTimer(TIMER_ACTION.set, TIMER_MODE.endTime, end.getTime());
  } else if (/^\d+$/.test(s)) body = encodeTimer(TIMER_ACTION.set, TIMER_MODE.countdown, Number(s) * 60000);
  else { toast('Type minutes (20) or an end time (14:30).'); return; }
  act(() => app.link.request(C.timer, body));
}

// ── drawing ──

export function renderConsole() {
  const on = consoleActive();
  if (!on && !con.built && !consoleAvailable()) return;
  build();
  $('con-reopen').hidden = on || !consoleAvailable();
  $('console-view').hidden = !on;
  document.body.classList.toggle('console-on', on);
  const audience = $('audience-card');
  $('con-jump-polls').hidden = !audience || audience.hidden;
  if (!on) { closeOverview(); return; }
  const s = app.state;
  const sc = s.screen, cons = s.console;
  const slide = cons && cons.slide;
  $('con-counter').textContent = slide
    ? 'Slide ' + slide.label + (slide.label !== String(slide.index) ? ' (' + slide.index + ')' : '') + ' of ' + slide.count +
      (slide.steps > 1 ? ' · step ' + slide.step + ' of ' + slide.steps : '')
    : 'Page ' + sc.page + ' of ' + sc.pageCount;
  $('con-current-cap').textContent = 'Now · page ' + sc.page + ' of ' + sc.pageCount + (sc.blank !== 'none' ? ' · blanked' : '');
  tick();
  const id = sc.content.id;
  picture('con-current-img', 'cur', id, sc.page, false);
  if (sc.page < sc.pageCount) {
    $('con-next-cap').textContent = 'Next · page ' + (sc.page + 1);
    picture('con-next-img', 'next', id, sc.page + 1, false);
  } else {
    $('con-next-cap').textContent = 'End of the deck';
    $('con-next-img').removeAttribute('src');
    // Forget what it showed: coming back from the last slide fetches the picture again.
    con.nextKey = '';
  }
  const half = cons && cons.notesLayout && cons.notesLayout !== 'none';
  if (document.activeElement !== $('con-layout')) $('con-layout').value = cons ? cons.notesLayout : 'auto';
  $('con-notes-img').hidden = !half;
  if (half) picture('con-notes-img', 'half', id, sc.page, true);
  loadNotes(id, sc.page, cons ? cons.notesRevision : 0);
}

// Fetches a page picture for <img id> unless it already shows it.
async function picture(imgId, slot, id, page, notesHalf) {
  const width = Math.min(960, Math.max(320, Math.round(($(imgId).clientWidth || 480) * (window.devicePixelRatio || 1))));
  const key = id + '#' + page + (notesHalf ? 'n' : '') + '@' + width;
  if (con[slot + 'Key'] === key) return;
  con[slot + 'Key'] = key;
  try {
    const shot = await requestPicture(() => notesHalf
      ? app.link.image(C.pagePreview, encodeNotesHalfPreview(id, page, width))
      : app.link.pagePreview(id, page, width), true);
    if (con[slot + 'Key'] !== key) return;
    setImage(imgId, shot.png);
  } catch (e) {
    if (con[slot + 'Key'] === key) con[slot + 'Key'] = '';
  }
}

function setImage(imgId, png) {
  const url = URL.createObjectURL(png);
  const img = $(imgId);
  const old = con.urls.get(imgId);
  img.onload = () => { if (old) URL.revokeObjectURL(old); };
  con.urls.set(imgId, url);
  img.src = url;
}

async function loadNotes(id, page, revision) {
  const key = id + '#' + page + '@' + revision;
  if (con.notesKey === key || con.editing) return;
  con.notesKey = key;
  const serial = ++con.notesSerial;
  const box = $('con-notes-text');
  try {
    const reply = await app.link.request(C.notesRequest, encodeNotesRequest(id, page));
    if (serial !== con.notesSerial) return;
    const n = decodeNotes(reply.body);
    const p = n.pages[0] || { text: '', source: 'none' };
    con.notes = { id, page, text: p.text };
    box.textContent = p.text;
    box.classList.toggle('empty', !p.text);
    if (!p.text) box.textContent = n.layout !== 'none' ? '' : 'No notes for this page. Tap Edit to write some.';
    box.dataset.source = p.source;
  } catch (e) {
    if (serial === con.notesSerial) { box.textContent = 'Notes are unavailable.'; con.notesKey = ''; }
  }
}

function toggleEdit() {
  const input = $('con-notes-input'), text = $('con-notes-text'), button = $('con-edit');
  if (!con.editing) {
    if (!con.notes) return;
    con.editing = true;
    input.value = con.notes.text;
    input.hidden = false; text.hidden = true;
    button.textContent = 'Save';
    input.focus();
    return;
  }
  const { id, page } = con.notes;
  const value = input.value;
  act(async () => {
    await app.link.request(C.notesEdit, encodeNotesEdit(id, page, value));
    con.editing = false;
    input.hidden = true; text.hidden = false;
    button.textContent = 'Edit';
    con.notesKey = '';
    renderConsole();
  });
}

// Every half second: the timer and the clock count on between state pushes.
function tick() {
  if (!consoleActive()) return;
  const cons = app.state.console;
  const el = $('con-timer');
  if (cons && cons.timer) {
    const t = cons.timer;
    const n = timerNow(t, app.stateAt || Date.now());
    el.textContent = n.remaining != null ? clock(n.remaining) : clock(n.elapsed);
    el.classList.toggle('warning', n.warning && !n.over);
    el.classList.toggle('over', n.over);
    el.classList.toggle('paused', !t.running);
    el.title = t.mode === 'elapsed' ? 'Time talked' : 'Time left';
    $('con-timer-toggle').textContent = t.running ? 'Pause' : (t.elapsedMs > 0 ? 'Resume' : 'Start');
  }
  const now = new Date();
  $('con-clock').textContent = String(now.getHours()).padStart(2, '0') + ':' + String(now.getMinutes()).padStart(2, '0');
}

// ── the overview: every slide's thumbnail, fetched as it scrolls into view ──

function openOverview() {
  const s = app.state;
  if (!s || !s.screen.content) return;
  const grid = $('con-grid');
  const id = s.screen.content.id;
  if (!con.overview || con.overview.content !== id) {
    if (con.overview) con.overview.observer.disconnect();
    grid.textContent = '';
    const observer = new IntersectionObserver((entries) => {
      for (const e of entries) {
        if (!e.isIntersecting) continue;
        observer.unobserve(e.target);
        loadThumb(e.target, id);
      }
    }, { root: $('con-overview'), rootMargin: '200px' });
    for (let p = 1; p <= s.screen.pageCount; p++) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'con-thumb';
      b.dataset.page = String(p);
      b.innerHTML = '<img alt=""><span class="con-thumb-label">' + p + '</span>';
      b.addEventListener('click', () => { act(() => app.link.control(SIGNAL.goto, p)); closeOverview(); });
      grid.appendChild(b);
      observer.observe(b);
    }
    con.overview = { content: id, observer };
  }
  for (const b of grid.children) b.classList.toggle('current', Number(b.dataset.page) === s.screen.page);
  $('con-overview').hidden = false;
}

async function loadThumb(button, id) {
  const page = Number(button.dataset.page);
  try {
    const shot = await requestPicture(() => app.link.pagePreview(id, page, THUMB_WIDTH), false);
    const img = button.querySelector('img');
    img.src = URL.createObjectURL(shot.png);
    img.dataset.loaded = '1';
    img.alt = 'Page ' + page;
  } catch (e) { /* left blank: the number below says which page it is */ }
}

function closeOverview() { const o = $('con-overview'); if (o) o.hidden = true; }

// Switching back from the room view to the console.
export function consoleAvailable() {
  const s = app.state;
  return !!(app.phase === 'in' && s && app.session && !isModerator() && s.floor.driver === me() && s.screen.content &&
    s.screen.content.kind === 'pdf');
}
export function showConsoleAgain() { sessionStorage.setItem(VIEW_KEY, '0'); renderConsole(); }
