// Speaker notes as files (docs/protocol.md §20.2): .pdfpc files chosen with the decks are
// attached to their deck, and the notes of the deck on screen are saved as a .pdfpc file.

import { C } from '../core/protocol.js';
import { app } from './state.js';
import { act } from './notices.js';
import { toast } from './dom.js';
import { encodeNotesRequest, decodeNotes, encodeNotesFile, pdfpcFile } from '../core/console-wire.js';

// Saves every page's notes of the deck on screen as a pdfpc file (for pdfpc, or another room).
export async function exportNotes() {
  const s = app.state;
  if (!s || !s.screen.content) return;
  await act(async () => {
    const reply = decodeNotes((await app.link.request(C.notesRequest, encodeNotesRequest(s.screen.content.id, 0))).body);
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([pdfpcFile(reply)], { type: 'application/json' }));
    a.download = s.screen.content.name.replace(/\.pdf$/i, '') + '.pdfpc';
    document.body.appendChild(a);
    a.click();
    a.remove();
  });
}

// Files chosen for upload: decks and clips are uploaded (upload), then each .pdfpc notes
// file is attached to the deck of the same name among this page's uploads, or else to the
// deck on screen (§20.2).
export async function withNotesFiles(files, upload) {
  const notes = files.filter((f) => /\.pdfpc$/i.test(f.name));
  const rest = files.filter((f) => !/\.pdfpc$/i.test(f.name));
  if (rest.length) await upload(rest);
  for (const f of notes) {
    const base = f.name.replace(/\.pdfpc$/i, '').toLowerCase();
    const named = app.files.find((x) => x.kind !== 'clip' && x.name.replace(/\.pdf$/i, '').toLowerCase() === base);
    const screen = app.state && app.state.screen.content && app.state.screen.content.kind === 'pdf' ? app.state.screen.content : null;
    const target = named || screen;
    if (!target) { toast('Upload the deck first, then its notes file ' + f.name + '.'); continue; }
    const bytes = new Uint8Array(await f.arrayBuffer());
    const ok = await act(() => app.link.request(C.notesFile, encodeNotesFile(target.id, bytes)));
    if (ok !== undefined) toast('Notes from ' + f.name + ' added to ' + target.name + '.', 'info');
  }
}
