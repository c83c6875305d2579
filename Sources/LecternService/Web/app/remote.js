// The Lectern web remote: the wire protocol of docs/protocol.md spoken over the WebSocket
// at /ws, and the presenter's and moderator's page around it. No build step, nothing
// loaded from anywhere else: this entry module and the modules it imports by relative URL
// (index.html loads /lectern.js, which imports this one).
//
// The protocol, in ../core/ (no DOM; node --test tests each against a fake socket):
// protocol.js (numbers and names) · bytes.js · wire.js (frames, bodies) · sha256.js,
// crypto.js (passcode key and proofs) · link.js (the WebSocket) · upload.js.
// The page, here in app/: dom.js ($, the toast, the banner) · state.js · session.js
// (joining, resuming, leaving) · notices.js · the views
// (screen-, floor-, files-, clip-, moderator-view.js; views.js draws them all) ·
// preview.js · next-slide.js · drive.js · ink-tool.js (pointer and pen) · and here, the wiring.

import { utf8, hex, fromHex } from '../core/bytes.js';
import { COMMANDS, ERRORS, C, ERR, MODERATE, SIGNAL } from '../core/protocol.js';
import { sha256, hmacSha256, pbkdf2Sha256 } from '../core/sha256.js';
import { deriveKey, registerMAC, registerProof, usesWebCrypto } from '../core/crypto.js';
import { encodeClipPlay, encodeClipSeek } from '../core/wire.js';
import { $, toast, banner } from './dom.js';
import { app, canDrive, loadSession, NAME_KEY, me, isModerator, deviceName } from './state.js';
import { confirmTakeover } from './confirm-live.js';
import { describe, act } from './notices.js';
import { show, connect, resume, join, leave, reconnectNow, PASSCODE_CHANGED } from './session.js';
import { renderAll } from './views.js';
import { renderFloor } from './floor-view.js';
import { renderClip } from './clip-view.js';
import { setupSound } from './sound-control.js';
import { setupRecord } from './record-view.js';
import { renderModerator, grantFloor, takeBackLoan } from './moderator-view.js';
import { uploadFiles } from './files-view.js';
import { acceptList, FORMATS } from './formats.js';
import { drive, onKey, setupSwipe } from './drive.js';
import { setupInk, inkTool } from './ink-tool.js';
import { withNotesFiles } from './notes-files.js';
import { goLive, lastPages } from './go-live.js';
import { showPicture } from './presenter-layout.js';
import { setupAlerts } from './alerts.js';
import { watchPreview } from './preview.js';
import { takeCodeFromFragment } from './screen-code.js';
import { remember, recall, forget, noteMeeting } from '../core/remembered.js';
import { setupShare, currentSharer } from './share-view.js';

// ── wiring ──

// Someone else is live (holds the floor, with something on the wall): ask before taking
// the wall from them; a moderated room's presenter only asks, so nothing to confirm.
async function confirmIfLive(question) {
  const s = app.state;
  if (!s || s.floor.holder === null || s.floor.holder === me()) return true;
  if (s.floorMode === 'moderated' && !isModerator()) return true;
  return confirmTakeover(question + deviceName(s.floor.holder) + '?');
}

function fileName(id) {
  const f = app.files.find((x) => x.id === id);
  return f ? f.name : 'your file';
}

function onClick(e) {
  const b = e.target.closest('button');
  if (!b || b.disabled) return;
  const action = b.dataset.action;
  if (!action) return;
  const device = b.dataset.device ? Number(b.dataset.device) : 0;
  switch (action) {
    case 'present': {
      const id = b.dataset.content;
      act(() => goLive(fileName(id), () => app.link.present(id, lastPages.get(id) || 1).then(showPicture)));
      break;
    }
    case 'play': {
      const id = b.dataset.content;
      act(() => goLive(fileName(id), () => app.link.request(C.clipPlay, encodeClipPlay(id, $('clip-loop').checked)).then(showPicture)));
      break;
    }
    case 'grant': act(() => grantFloor(device)); break;
    case 'takeback': act(takeBackLoan); break;
    case 'withdraw': act(() => app.link.moderate(MODERATE.withdraw, device)); break;
    case 'reject': act(() => app.link.moderate(MODERATE.reject, device)); break;
    case 'kick': {
      const k = 'kick' + device;
      if (app.armed.has(k)) {
        clearTimeout(app.armed.get(k)); app.armed.delete(k);
        act(() => app.link.moderate(MODERATE.kick, device));
      } else {
        app.armed.set(k, setTimeout(() => { app.armed.delete(k); renderModerator(); }, 4000));
        renderModerator();
      }
      break;
    }
    default: break;
  }
}

function init() {
  document.addEventListener('keydown', onKey);
  // Back on the network, or the phone unlocked: reconnect now rather than at the next step.
  window.addEventListener('online', reconnectNow);
  document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'visible') reconnectNow(); });
  document.addEventListener('click', onClick);
  $('login-form').addEventListener('submit', joinAndRemember);
  $('leave').addEventListener('click', () => { forget(); leave(); });
  $('next').addEventListener('click', drive.next);
  $('upnext').addEventListener('click', () => { if (canDrive()) drive.next(); });
  $('prev').addEventListener('click', drive.prev);
  $('blank-black').addEventListener('click', () => drive.blank(false));
  $('blank-white').addEventListener('click', () => drive.blank(true));
  $('clear-screen').addEventListener('click', async () => { if (!canDrive() || await confirmIfLive('Clear the screen of ')) drive.clear(); });
  $('goto-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const n = parseInt($('goto-page').value, 10);
    if (!(n >= 1)) { toast('Type a page number first.'); return; }
    drive.goto(n);
    $('goto-page').value = '';
    $('goto-page').blur();
  });
  $('floor-request').addEventListener('click', () => act(async () => {
    if (!(await confirmIfLive('Take the floor from '))) return;
    const ack = await app.link.requestFloor();
    if (!ack.holder) toast('You are number ' + ack.position + ' in the queue.', 'info');
  }));
  $('floor-release').addEventListener('click', () => act(() => app.link.request(C.floorRelease, new Uint8Array(0))));
  $('floor-takeback').addEventListener('click', () => act(() => app.link.control(SIGNAL.takeBack)));
  $('dnd').addEventListener('change', (e) => act(() => app.link.moderate(e.target.checked ? MODERATE.dndOn : MODERATE.dndOff, 0)).then(renderModerator));
  // The pickers offer everything the appliance shows (formats.js, one table with the server's).
  for (const id of ['file-input', 'file-present']) $(id).accept = acceptList();
  $('file-input').addEventListener('change', (e) => {
    const files = Array.from(e.target.files || []);
    e.target.value = '';
    if (files.length) withNotesFiles(files, uploadFiles);
  });
  // The newcomer's one step: upload, then on the wall.
  $('file-present').addEventListener('change', (e) => {
    const files = Array.from(e.target.files || []);
    e.target.value = '';
    if (files.length) withNotesFiles(files, (fs) => uploadFiles(fs, true));
  });
  // One Play/Pause toggle: what it does follows the clip's state.
  $('clip-toggle').addEventListener('click', () => {
    const clip = app.state && app.state.screen.clip;
    act(() => app.link.request(clip && clip.state === 'paused' ? C.clipResume : C.clipPause, new Uint8Array(0)));
  });
  // Loop mid-play: the clip on screen follows the box at once (clip-loop); with no clip it
  // is what the next Play uses.
  $('clip-loop').addEventListener('change', (e) => {
    const clip = app.state && app.state.screen.clip;
    app.loopTapped = Date.now();
    if (clip) act(() => app.link.request(C.clipLoop, new Uint8Array([e.target.checked ? 1 : 0])));
  });
  $('clip-stop').addEventListener('click', () => act(() => app.link.request(C.clipStop, new Uint8Array(0))));
  $('clip-position').addEventListener('change', (e) => act(() => app.link.request(C.clipSeek, encodeClipSeek(Number(e.target.value)))));
  setupSound();
  setupRecord();
  setupSwipe();
  setupInk();
  setupAlerts();
  setupShare();
  watchPreview();
  // Countdowns (grace period, clip position) tick locally between state pushes.
  setInterval(() => {
    // Removed from the room, or the room's passcode changed: not back by itself.
    if (app.phase === 'gone' || (app.phase === 'login' && $('login-error').textContent === PASSCODE_CHANGED)) forget();
    if (app.phase !== 'in' || !app.state) return;
    watchMeeting();
    if (app.state.floor.graceRemainingMs != null) renderFloor();
    if (app.state.screen.clip) renderClip();
  }, 500);

  $('name').value = localStorage.getItem(NAME_KEY) || '';
  const code = takeCodeFromFragment();   // the idle screen's QR code: #code=123456 (screen_code)
  const saved = loadSession();
  const known = !saved && !code ? recall() : null;
  if (saved || known) {
    // This tab's own session (a reload), or the key this browser kept for the meeting (a
    // new tab, a second scan): in again without typing (remembered.js).
    app.session = saved || known;
    app.files = saved ? saved.files : [];
    app.autoJoined = !saved;
    show('reconnecting');
    $('room-view').hidden = true;
    banner('Joining again…');
    resume().then(() => { if (known && !app.session) forget(); });
  } else {
    show('connecting');
    connect().then(() => {
      if (app.phase !== 'connecting') return;
      show('login');
      // The code from the QR code and a name this browser knows: joining needs nothing more.
      if (code && $('name').value.trim()) { $('login-form').requestSubmit(); return; }
      $($('name').value.trim() ? 'passcode' : 'name').focus();
    }).catch((e) => {
      show('login');
      $('login-error').textContent = describe(e);
    });
  }
}

// Join from the form, then keep the key for the meeting on this browser.
async function joinAndRemember(ev) {
  await join(ev);
  app.autoJoined = false;
  if (app.phase === 'in' && app.session && app.hello) remember(app.session, app.hello.room, app.state && app.state.meeting);
}

// The meeting this browser's key was kept for is over (another `meeting` id in the state):
// the key is forgotten, and a tab that joined with it leaves, to be let in by the passcode.
function watchMeeting() {
  const seen = noteMeeting(app.state.meeting);
  if (seen !== 'ended' || !app.autoJoined) return;
  app.autoJoined = false;
  leave().then(() => { $('login-error').textContent = 'A new meeting has started: type the passcode to join it.'; });
}

// For the browser tests and for people poking at the console.
const api = {
  render: renderAll, sha256, hmacSha256, pbkdf2Sha256, deriveKey, registerMAC, registerProof, usesWebCrypto, hex, fromHex,
  utf8: (s) => utf8.encode(s), app, protocol: { COMMANDS, ERRORS, C, ERR }, formats: FORMATS, ink: inkTool, sharer: currentSharer,
};
if (typeof window !== 'undefined') window.Lectern = api;
if (typeof document !== 'undefined') {
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init); else init();
}
