// Files converted on the appliance (docs/protocol.md §30): where each conversion stands, as
// the state's `conversions` says, in the presenter's page ("Converting deck.pptx · slide 12
// of 30"); an upload that resolves as soon as its first page may be presented (§30.8); and
// the deck on the screen while the rest of it converts: its page count grows as the state
// says, and the next page says it is still converting.

import { $ } from './dom.js';
import { app, saveSession } from './state.js';
import { C } from './protocol.js';
import { decodeUploadStored } from './wire.js';
import { ConnectionLost } from './link.js';
import { toast, describe } from './notices.js';

export const FIRST_PAGE = 3;   // conversion-progress stage: page 1 may be presented (§30.8)

// The upload-finish of file `id` (upload-begin's tag `beginTag`): resolves to { body } of
// its upload-stored, or — for a file converted on the appliance — to { firstPage: { pages,
// total } } as soon as its first page may be presented. The rest converts on: once the
// whole deck exists the files list has all its pages; if it can't be, the person is told
// why (the answer to the upload-finish, which still comes) and the file leaves the list.
export function finishConverted(link, id, beginTag, name) {
  return new Promise((resolve, reject) => {
    let early = false;
    const idHex = Array.from(id, (b) => b.toString(16).padStart(2, '0')).join('');
    link.converting.set(beginTag, (p) => {
      if (p.stage !== FIRST_PAGE || early) return;
      early = true;
      resolve({ firstPage: { pages: Math.max(1, p.done), total: p.total } });
    });
    const tag = link.newTag();
    link.pending.set(tag, {
      resolve: (reply) => {
        link.converting.delete(beginTag);
        if (!early) { resolve(reply); return; }
        if (reply.command !== C.uploadStored) return;
        const s = decodeUploadStored(reply.body);
        const f = app.files.find((x) => x.id === idHex);
        if (f) { f.pages = s.pages; delete f.converting; saveSession(); }
      },
      reject: (e) => {
        link.converting.delete(beginTag);
        if (!early) { reject(e); return; }
        if (e instanceof ConnectionLost) return;   // it converts on: the state says how it ends
        app.files = app.files.filter((x) => x.id !== idHex);
        saveSession();
        toast(name + ': ' + describe(e), 'error', { sticky: true });
      },
    });
    link.send(C.uploadFinish, id, tag);
  });
}

const PRESENTATIONS = ['pptx', 'ppt', 'odp', 'key'];
function unit(format) { return PRESENTATIONS.includes(format) ? 'slide' : 'page'; }

// What a person reads of one conversion of the state.
export function conversionText(c) {
  if (c.stage === 'queued') return 'Converting ' + c.name + ' · stored, waiting for the converter';
  const ready = c.ready > 0 ? ' · ' + unit(c.format) + ' 1 ready' : '';
  if (c.total > 0) return 'Converting ' + c.name + ' · ' + unit(c.format) + ' ' + c.done + ' of ' + c.total + ready;
  return 'Converting ' + c.name + ' · ' + Math.floor(c.elapsedMs / 1000) + ' s of at most ' + Math.floor(c.budgetMs / 1000) + ' s' + ready;
}

function box() {
  let el = document.getElementById('conversions');
  if (el) return el;
  el = document.createElement('ul');
  el.id = 'conversions';
  el.className = 'list small conversions';
  el.setAttribute('role', 'status');
  el.setAttribute('aria-live', 'polite');
  el.setAttribute('aria-label', 'Files being converted');
  const anchor = $('upload-box');
  if (anchor && anchor.parentNode) anchor.parentNode.insertBefore(el, anchor.nextSibling); else document.body.append(el);
  return el;
}

export function renderConversions() {
  const s = app.state;
  const list = (s && Array.isArray(s.conversions)) ? s.conversions : [];
  const el = box();
  el.hidden = list.length === 0;
  el.replaceChildren(...list.map((c) => {
    const li = document.createElement('li');
    li.textContent = conversionText(c);
    return li;
  }));
  // The deck on the screen, shown by its first pages while the rest converts (§30.8).
  const screen = s ? s.screen : null;
  if (!screen || !screen.content || screen.content.kind !== 'pdf') return;
  const c = list.find((x) => x.id === screen.content.id && x.ready > 0);
  if (!c) return;
  // The page label says the pages that exist ("1 / 1"), and grows with the state.
  if (screen.page >= screen.pageCount) $('next-label').textContent = 'Next: ' + unit(c.format) + ' ' + (screen.page + 1) + ' is still converting';
}
