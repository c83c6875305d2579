// The files card: this session's uploads, ready to present or play, and the upload box.

import { $ } from './dom.js';
import { app, saveSession, whenIn } from './state.js';
import { toast, describe } from './notices.js';
import { upload } from './upload.js';
import { ConnectionLost } from './link.js';
import { clock, renderClip } from './clip-view.js';
import { UploadSpeed } from './upload-speed.js';

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
}

export async function uploadFiles(files) {
  for (const file of files) await uploadOne(file);
}

async function uploadOne(file) {
  const bar = $('upload-bar'), text = $('upload-text');
  $('upload-box').hidden = false;
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
        const item = await upload(app.link, file, report);
        app.files = app.files.filter((f) => f.id !== item.id).concat([item]);
        saveSession();
        renderFiles(); renderClip();
        text.textContent = item.name + ' is ready.';
        bar.value = 1;
        break;
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
