import { $ } from './dom.js';
import { C } from '../core/protocol.js';
import { app, isModerator } from './state.js';
import { encodeNotesRequest, decodeNotes } from '../core/console-wire.js';
import { build } from './console-view.js';

// ── the moderator's copy of the notes ──
// The moderator keeps the room view; a card beside the screen shows the notes of the page
// on screen, read-only (§20.2: notes are for the floor holder and the moderator).

const mod = { key: '', serial: 0 };

export function renderModeratorNotes() {
  const s = app.state;
  const show = app.phase === 'in' && s && isModerator() && s.screen.content && s.screen.content.kind === 'pdf' && s.console && s.console.hasNotes;
  let card = $('mod-notes');
  if (!show) { if (card) card.hidden = true; mod.key = ''; return; }
  if (!card) {
    card = document.createElement('section');
    card.id = 'mod-notes';
    card.className = 'card mod-notes';
    card.setAttribute('aria-label', 'Speaker notes');
    card.innerHTML = '<h2>Speaker notes <span id="mod-notes-page" class="muted small"></span></h2><div id="mod-notes-text" class="con-notes-text"></div>';
    const stage = document.querySelector('#room-view .stage');
    if (stage) stage.parentNode.insertBefore(card, stage.nextSibling); else $('room-view').appendChild(card);
    build();   // the console's stylesheet (console.css)
  }
  card.hidden = false;
  const id = s.screen.content.id, page = s.screen.page;
  const key = id + '#' + page + '@' + s.console.notesRevision;
  if (key === mod.key) return;
  mod.key = key;
  const serial = ++mod.serial;
  $('mod-notes-page').textContent = s.console.slide ? 'slide ' + s.console.slide.label : 'page ' + page;
  app.link.request(C.notesRequest, encodeNotesRequest(id, page)).then((reply) => {
    if (serial !== mod.serial) return;
    const p = decodeNotes(reply.body).pages[0];
    $('mod-notes-text').textContent = p && p.text ? p.text : 'No notes for this page.';
  }).catch(() => { if (serial === mod.serial) { $('mod-notes-text').textContent = 'Notes are unavailable.'; mod.key = ''; } });
}
