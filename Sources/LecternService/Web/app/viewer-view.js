// The audience page (docs/protocol.md §24): join as a viewer (role 3) with the room or
// audience passcode (derived with the presenter's parameters), follow the wall (the slide
// at this device's size over HTTP with its own key, blank when the wall is; the ink and
// the pointer over it), browse when unlocked, answer the poll, ask and up-vote questions.
// A reload joins again with the kept key and token.
import { C, ERR, ROLE, PAGE_IMAGE_WIDTHS } from '../core/protocol.js';
import { Link, ConnectionLost } from '../core/link.js';
import { deriveKey } from '../core/crypto.js';
import { Writer } from '../core/wire.js';
import { renderPoll } from './poll-view.js';
import { sha256 } from '../core/sha256.js';
import { ViewerOverlay } from './viewer-overlay.js';
import { renderViewerWall, followedPane } from './viewer-wall.js';
import { followShare, mainShare, shareCounts } from './viewer-share.js';
import { $, wsURL, toast as domToast } from './dom.js';
import { hex, fromHex } from '../core/bytes.js';

const KEY = 'lectern-viewer';
const app = { link: null, hello: null, state: null, token: null, key: null, name: '', shown: '', own: null, mine: {}, imageKey: '', overlay: null };
// The widths page images come in (§24.2): the device asks for the smallest at least as wide as its slide.
const WIDTHS = PAGE_IMAGE_WIDTHS;
window.LecternViewer = app;
app.shareCounts = shareCounts;

// The audience page's toast: no dismiss button, gone after 4 s, in the page's ink.
const toast = (msg) => domToast(msg, 'info', { dismissible: false, ms: 4000 });

// The page's one connection. A fresh one replaces the one before it, which is closed: a
// connection left open unused is closed by the appliance after 30 s without a register
// (§4), and its "Nothing heard for 30 s" would be shown to a viewer following happily on
// the next one.
async function connect() {
  const link = new Link(wsURL(), {
    onState: (s) => { if (link === app.link) { app.state = s; render(); } },
    onFloorNote: () => {},
    onServerError: (e) => {
      if (link !== app.link) return;
      if (e.code === ERR.meetingEnded) { meetingEnded(e.message); return; }
      // The join form left open past the register deadline: not news; Follow connects again.
      if (e.code === ERR.timedOut && !link.registered) return;
      toast(e.message);
    },
    onMessage: (command, body) => { if (link === app.link && command === C.viewerPointer && app.overlay) app.overlay.pointerMessage(body); },
    onClose: () => { if (app.link === link && app.key !== null) setTimeout(join, 1000); },
  });
  const before = app.link;
  app.link = link;
  if (before && before !== link) before.close();
  const hello = await link.open();
  app.hello = hello;
  $('room-name').textContent = hello.room;
  $('join-room').textContent = hello.room;
  return hello;
}

// The meeting ended (§27): back to the join form, nothing of this meeting kept.
function meetingEnded(message) {
  app.key = null; app.token = null; app.state = null; app.mine = {}; app.own = null;
  sessionStorage.removeItem(KEY);
  $('audience-view').hidden = true;
  $('join-view').hidden = false;
  document.body.dataset.phase = 'gone';
  $('join-error').textContent = message;
}

async function join(passcode) {
  let hello;
  // The connection the join form opened is used for the register, if it is still open and
  // unused; otherwise a fresh one.
  const idle = app.link && app.link.isOpen && !app.link.registered && app.hello;
  try { hello = idle ? app.hello : await connect(); } catch (e) { $('join-error').textContent = "Can't reach the appliance."; return; }
  const p = hello.presenter;
  if (passcode !== undefined) {
    app.key = passcode ? await deriveKey(passcode, p.salt, p.rounds) : new Uint8Array(0);
  }
  try {
    const ok = await app.link.register(ROLE.viewer, app.name, app.key && app.key.length ? app.key : null, app.token);
    app.token = ok.token;
    app.imageKey = imageKey(ok.token);
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

/// The device's key for page images: SHA-256("lectern-page-image-v1" ‖ resume token), 32 hex digits.
function imageKey(token) {
  if (!token || token.length !== 16) return '';
  const label = new TextEncoder().encode('lectern-page-image-v1');
  const all = new Uint8Array(label.length + token.length);
  all.set(label); all.set(token, label.length);
  return hex(sha256(all)).slice(0, 32);
}

/// The slide over HTTP: one URL per page and width, so the browser's cache and the
/// service's ETag make a page seen before cost a 304; srcset lets the browser pick a
/// sharper one for the screen's density.
function showSlide(path) {
  const el = $('slide');
  const css = el.parentElement.clientWidth || 360;
  const width = WIDTHS.find((w) => w >= css * (window.devicePixelRatio || 1)) || WIDTHS[WIDTHS.length - 1];
  const url = (w) => path + '/' + w + '?k=' + app.imageKey;
  const key = path + '/' + width;
  if (app.shown === key) return;
  app.shown = key;
  el.sizes = css + 'px';
  el.srcset = WIDTHS.map((w) => url(w) + ' ' + w + 'w').join(', ');
  el.src = url(width);
  el.dataset.page = path.split('/').pop();
}

function render() {
  const s = app.state;
  if (!s) return;
  const a = s.audience || { locked: true, questions: [], poll: null, download: false };
  // The pane the viewer follows (§24.8): the main pane's screen, or the one it picked.
  const pane = followedPane(s);
  const scr = pane ? pane.screen : s.screen;
  const image = pane ? pane.pageImage : a.pageImage;
  const live = scr.content && scr.content.kind === 'pdf' ? scr.page : 0;
  if (a.locked || app.own === null) app.own = null;
  const page = app.own || live;
  const blank = scr.blank !== 'none';
  // A live share in the followed pane: its pictures in the slide's place (viewer-share.js).
  const share = blank || app.own ? null : mainShare(s, pane ? pane.index : null);
  followShare(app.link, $('slide'), share);
  $('slide').classList.toggle('blank', !share && (blank || !live));
  $('slide-note').textContent = (pane ? 'Pane ' + pane.index + ': ' : '') + (share ? (share.name || 'Someone') + ' is sharing' + (share.status === 'live' ? '' : ' (paused)') + '.' :
    blank ? (pane ? 'blanked.' : 'The wall is blanked.') : !live ? 'Nothing is shown yet.' :
    'Slide ' + page + ' of ' + scr.pageCount + (app.own ? ' (you are browsing)' : ''));
  $('live-note').textContent = share || live ? (app.own ? 'browsing' : 'live') : '';
  if (share) {
    app.shown = '';
  } else if (live && !blank && image) {
    showSlide(app.own ? '/page/' + scr.content.id + '/' + page : image);
  } else if (app.shown) {
    app.shown = '';
    $('slide').removeAttribute('srcset');
    $('slide').removeAttribute('src');
  }
  // Ink and the pointer are the main pane's (§22): none over another pane's page.
  if (app.overlay) app.overlay.update(app.link, s, page, !share && !blank && !!live && !pane);
  renderViewerWall(s, () => { app.own = null; render(); });
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
  const pane = followedPane(s);
  const scr = s && (pane ? pane.screen : s.screen);
  if (!scr || !scr.content) return;
  const from = app.own || scr.page;
  app.own = Math.max(1, Math.min(scr.pageCount, from + delta));
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
  app.overlay = new ViewerOverlay($('overlay'));
  $('slide').onload = () => app.overlay.draw();
  window.addEventListener('resize', () => { app.shown = ''; render(); });
  $('browse-prev').onclick = () => browse(-1);
  $('browse-next').onclick = () => browse(1);
  $('back-live').onclick = () => { app.own = null; render(); };
  const kept = JSON.parse(sessionStorage.getItem(KEY) || 'null');
  if (kept) {
    app.key = fromHex(kept.key); app.token = fromHex(kept.token); app.name = kept.name || '';
    if (app.token.length !== 16) app.token = null;
    app.imageKey = imageKey(app.token);
    await join();
  } else {
    try { await connect(); } catch (e) { $('join-error').textContent = "Can't reach the appliance."; }
  }
});
