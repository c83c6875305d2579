// The meeting record (docs/protocol.md §26): a "Meeting record" card after the moderator's
// with one button that asks record-request, shows the pages drawn so far, and saves the
// PDF. The moderator's; presenters see it only when the admin allows
// (record_presenters, the state's record.presentersMayDownload), whoever leads in a room
// without a moderator passcode (record.leadMayDownload); not at all with record off.

import { $, toast } from './dom.js';
import { C } from '../core/protocol.js';
import { app, isModerator, canDrive } from './state.js';
import { act } from './notices.js';
import { ConnectionLost } from '../core/link.js';

export function setupRecord() {
  const mod = $('mod-card');
  if (!mod || $('record-card')) return;
  const card = document.createElement('section');
  card.id = 'record-card';
  card.className = 'card';
  card.hidden = true;
  card.setAttribute('aria-label', 'Meeting record');
  card.innerHTML =
    '<h2>Meeting record</h2>' +
    '<p class="muted" id="record-summary"></p>' +
    '<div class="clip-buttons"><button id="record-download" type="button" class="primary">Download PDF</button>' +
    '<span id="record-progress" class="muted" role="status" aria-live="polite"></span></div>';
  mod.after(card);
  $('record-download').addEventListener('click', () => act(download));
}

export function renderRecord() {
  const card = $('record-card');
  if (!card) return;
  const r = app.state && app.state.record;
  const may = !!r && r.on && (isModerator() || (r.presentersMayDownload && !!app.session) || (r.leadMayDownload && canDrive()));
  card.hidden = !may;
  if (!may) return;
  $('record-summary').textContent = r.pages === 0
    ? 'Nothing has been shown in this meeting yet.'
    : `${r.pages} page${r.pages === 1 ? '' : 's'} shown so far, with their ink, polls and clips. It stays on the appliance until downloaded and is cleared when the meeting ends.`;
  $('record-download').disabled = r.pages === 0 || !!app.recordBusy;
}

// record-request, its record-progress replies, then the record-data pieces of the PDF.
async function download() {
  const link = app.link;
  if (!link || !link.isOpen) throw new ConnectionLost('Not connected to the appliance.');
  app.recordBusy = true;
  renderRecord();
  const status = $('record-progress');
  status.textContent = 'Drawing the record…';
  try {
    const pdf = await new Promise((resolve, reject) => {
      const tag = link.newTag();
      const pieces = [];
      let got = 0;
      link.pending.set(tag, {
        resolve, reject,
        onFrame(command, body) {
          const v = new DataView(body.buffer, body.byteOffset, body.byteLength);
          if (command === C.recordProgress && body.length >= 4) {
            status.textContent = `Drawing page ${v.getUint16(0)} of ${v.getUint16(2)}…`;
            return true;
          }
          if (command === C.recordData && body.length >= 10) {
            const total = v.getUint32(2), offset = v.getUint32(6);
            const data = body.slice(10);
            if (offset !== got) { link.pending.delete(tag); reject(new Error('The record arrived out of order — try again.')); return true; }
            pieces.push(data);
            got += data.length;
            status.textContent = `Receiving ${Math.round(got / 1024)} of ${Math.round(total / 1024)} KiB…`;
            if (got >= total) { link.pending.delete(tag); resolve(new Blob(pieces, { type: 'application/pdf' })); }
            return true;
          }
          return false;
        },
      });
      link.send(C.recordRequest, new Uint8Array(0), tag);
    });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(pdf);
    const room = (app.state && app.state.room || 'meeting').replace(/[^\p{L}\p{N} ._-]/gu, '').trim() || 'meeting';
    a.download = `${room} record.pdf`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 60000);
    status.textContent = 'Saved.';
    toast('Meeting record saved.', 'info');
  } catch (e) {
    status.textContent = '';
    throw e;
  } finally {
    app.recordBusy = false;
    renderRecord();
  }
}
