// Files converted on the appliance (docs/protocol.md §30): where each conversion stands, as
// the state's `conversions` says, in the presenter's page ("Converting deck.pptx · slide 12
// of 30"); how a conversion whose first page was presented early ends (§30.8, upload.js); and
// the deck on the screen while the rest of it converts: its page count grows as the state
// says, and the next page says it is still converting.

import { $, toast } from './dom.js';
import { app, saveSession } from './state.js';
import { decodeUploadStored } from '../core/wire.js';
import { describe } from './notices.js';

// How a conversion that let its first page be presented ends (upload.js's `later`): the
// file gets its whole page count, or leaves the list with the reason told.
export function conversionOutcome(name) {
  return {
    stored: (body, id) => {
      const s = decodeUploadStored(body);
      const f = app.files.find((x) => x.id === id);
      if (f) { f.pages = s.pages; delete f.converting; saveSession(); }
    },
    failed: (e, id) => {
      app.files = app.files.filter((x) => x.id !== id);
      saveSession();
      toast(name + ': ' + describe(e), 'error', { sticky: true });
    },
  };
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
