// The files card: this session's uploads, ready to present or play, and the upload box.
// A newcomer gets "Upload and present" first: one step, the file goes on the wall once it
// is stored, as its Present would put it there. "Upload" alone keeps it for later.

import { $, toast } from './dom.js';
import { app, saveSession, whenIn, me, isModerator } from './state.js';
import { describe, act } from './notices.js';
import { upload, uploadName } from '../core/upload.js';
import { conversionOutcome } from './conversion-view.js';
import { ConnectionLost } from '../core/link.js';
import { clock, renderClip } from './clip-view.js';
import { UploadSpeed } from '../core/upload-speed.js';
import { C } from '../core/protocol.js';
import { encodeClipPlay } from '../core/wire.js';
import { goLive } from './go-live.js';
import { looksLikeImage } from './formats.js';
import { deckName, makeImagesDeck } from '../core/images-deck.js';
import { showPicture } from './presenter-layout.js';

// Whether "Upload and present" is offered: this session's first file, with the floor free
// or this device's (nobody else's talk is interrupted), and for a moderator (who drives
// without the floor) only over an idle wall.
export function uploadPresents() {
  const s = app.state;
  if (!s || !app.session || app.files.length > 0) return false;
  if (s.floor.holder !== null && s.floor.holder !== me()) return false;
  return !isModerator() || !s.screen.content;
}

// Puts an uploaded file on the wall, as its Present (or Play) button does.
export function goLiveWith(item) {
  const start = item.kind === 'pdf'
    ? () => app.link.present(item.id, 1).then(showPicture)
    : () => app.link.request(C.clipPlay, encodeClipPlay(item.id, $('clip-loop').checked)).then(showPicture);
  return act(() => goLive(item.name, start));
}

export function renderFiles() {
  const list = $('file-list');
  list.replaceChildren();
  for (const f of app.files) {
    const li = document.createElement('li');
    li.className = 'file';
    const info = document.createElement('div');
    info.className = 'file-info';
    const name = document.createElement('span');
    name.className = 'file-name';
    name.textContent = f.name;
    const meta = document.createElement('span');
    meta.className = 'muted';
    meta.textContent = f.kind === 'pdf' ? f.pages + (f.pages === 1 ? ' page' : ' pages') : 'clip' + (f.durationMs ? ', ' + clock(f.durationMs) : '');
    info.append(name, meta);
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'primary';
    b.dataset.action = f.kind === 'pdf' ? 'present' : 'play';
    b.dataset.content = f.id;
    b.textContent = f.kind === 'pdf' ? 'Present' : 'Play';
    const onScreen = app.state && app.state.screen.content && app.state.screen.content.id === f.id;
    if (onScreen) {
      b.textContent = f.kind === 'pdf' ? 'On screen' : 'Playing';
      b.className = 'onscreen';
      b.disabled = true;
      li.classList.add('on-screen');
    }
    li.append(info, b);
    list.append(li);
  }
  $('files-empty').hidden = app.files.length > 0;
  const offer = uploadPresents();
  // Styled (and found as the page's upload button) only while offered.
  $('upload-present').hidden = !offer;
  $('upload-present').className = offer ? 'upload' : '';
  $('upload-label').textContent = offer ? 'Upload only' : 'Upload slides, photos or clips';
}

// `present`: the first file goes on the wall once stored ("Upload and present"). Two or
// more photos or images chosen together become one deck in the order chosen (§30.9),
// listed instead of them, where the first of them was.
export async function uploadFiles(files, present = false) {
  const live = present && uploadPresents();
  const done = [];
  for (const file of files) {
    const item = await uploadOne(file);
    if (item) done.push({ file, item });
  }
  const images = done.filter((d) => looksLikeImage(d.file));
  let first = done.length ? done[0].item : null;
  if (images.length > 1) {
    const deck = await imagesAsOneDeck(images.map((d) => d.item), images.map((d) => d.file.name));
    if (deck && first === images[0].item) first = deck;
  }
  if (live && first && first.kind !== 'pdfpc') await goLiveWith(first);
}

// The uploaded images made one deck; the files list shows it instead of them.
async function imagesAsOneDeck(items, names) {
  const bar = $('upload-bar'), text = $('upload-text');
  const name = deckName(names);
  const making = 'Making one deck of ' + items.length + ' images…';
  text.textContent = making;
  bar.removeAttribute('value');
  app.uploading = true;
  try {
    const deck = await makeImagesDeck(app.link, items, name, () => { text.textContent = making; });
    const ids = new Set(items.map((i) => i.id));
    app.files = app.files.filter((f) => !ids.has(f.id) && f.id !== deck.id).concat([deck]);
    saveSession();
    renderFiles();
    text.textContent = name + ' is ready: ' + deck.pages + ' pages.';
    bar.value = 1;
    return deck;
  } catch (e) {
    text.textContent = describe(e);
    bar.value = 0;
    toast(describe(e));
    return null;
  } finally {
    app.uploading = false;
  }
}

// The appliance's refusal of a file larger than its limit (state.uploads, §30.10), said
// before the file is read or hashed, in the units the admin wrote; null when it fits.
export function tooBig(file) {
  const u = app.state && app.state.uploads;
  return u && file.size > u.maxFileBytes ? 'The file is larger than the ' + u.maxFileText + ' limit.' : null;
}

async function uploadOne(file) {
  const bar = $('upload-bar'), text = $('upload-text');
  $('upload-box').hidden = false;
  const refused = tooBig(file);
  if (refused) {
    text.textContent = file.name + ': ' + refused;
    bar.value = 0;
    toast(refused);
    return null;
  }
  app.uploading = true;
  const speed = new UploadSpeed();
  const report = (phase, done, total) => {
    const pct = total ? Math.floor(100 * done / total) : 100;
    if (phase === 'hash') {
      bar.removeAttribute('value');   // indeterminate while reading: nothing sent yet
      text.textContent = 'Reading ' + file.name + ' · ' + pct + ' %';
      return;
    }
    bar.value = total ? done / total : 1;
    if (phase === 'verify') { text.textContent = 'Checking ' + file.name + '…'; return; }
    text.textContent = 'Uploading ' + file.name + ' · ' + pct + ' %' + speed.describe(done, total);
  };
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        if (app.phase !== 'in') await whenIn(60000);
        const item = await upload(app.link, file, report, conversionOutcome(uploadName(file.name)));
        app.files = app.files.filter((f) => f.id !== item.id).concat([item]);
        saveSession();
        renderFiles(); renderClip();
        text.textContent = item.name + ' is ready.';
        bar.value = 1;
        return item;
      } catch (e) {
        // A dropped connection: the appliance keeps what it got; continue once back.
        if (e instanceof ConnectionLost && attempt < 5 && app.session) { text.textContent = 'Connection lost — the upload continues when it is back…'; continue; }
        throw e;
      }
    }
  } catch (e) {
    text.textContent = file.name + ': ' + describe(e);
    bar.value = 0;
    toast(describe(e));
  } finally {
    app.uploading = false;
  }
}
