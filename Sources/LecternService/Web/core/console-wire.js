// The presenter console's messages (docs/protocol.md §20): their bodies, encoder beside
// decoder. Pure functions of bytes, like wire.js.

import { utf8, utf8Decoder, fromHex } from './bytes.js';
import { Writer } from './wire.js';

export const TIMER_ACTION = { start: 1, pause: 2, reset: 3, set: 4 };
export const TIMER_MODE = { keep: 0, elapsed: 1, countdown: 2, endTime: 3 };
export const KEEP_WARNING = 0xFFFF;

// notes-request (0x60): content id, u32 page (0 = every page).
export function encodeNotesRequest(id, page) { return new Writer().bytes(fromHex(id)).u32(page).done(); }
// notes (0x61): JSON.
export function decodeNotes(body) { return JSON.parse(utf8Decoder.decode(body)); }
// notes-edit (0x62): content id, u32 page, the note as UTF-8 to the end.
export function encodeNotesEdit(id, page, text) { return new Writer().bytes(fromHex(id)).u32(page).bytes(utf8.encode(text)).done(); }
// notes-file (0x63): content id, the .pdfpc file to the end.
export function encodeNotesFile(id, bytes) { return new Writer().bytes(fromHex(id)).bytes(bytes).done(); }
// notes-layout (0x66): content id, u8 layout (255: detect again).
export const LAYOUT = { none: 0, right: 1, left: 2, top: 3, bottom: 4, auto: 255 };
export function encodeNotesLayout(id, layout) { return new Writer().bytes(fromHex(id)).u8(layout).done(); }

// The notes as a pdfpc file (JSON format 2), from a notes reply of every page.
export function pdfpcFile(reply) {
  let previous = null, overlay = 0;
  const pages = reply.pages.map((p) => {
    overlay = p.label === previous ? overlay + 1 : 0;
    previous = p.label;
    const entry = { idx: p.page - 1, label: p.label, overlay };
    if (p.source === 'typed' && p.text) entry.note = p.text;
    return entry;
  });
  const root = { pdfpcFormat: 2, disableMarkdown: true, pages };
  if (reply.durationMinutes != null) root.duration = reply.durationMinutes;
  if (reply.endTime != null) root.endTime = reply.endTime;
  if (reply.lastMinutes != null) root.lastMinutes = reply.lastMinutes;
  if (reply.layout && reply.layout !== 'none') root.notesPosition = reply.layout;
  return JSON.stringify(root, null, 2) + '\n';
}

// timer (0x64): action, mode, u16 warning minutes, u64 value.
export function encodeTimer(action, mode = TIMER_MODE.keep, value = 0, warnMinutes = KEEP_WARNING) {
  return new Writer().u8(action).u8(mode).u16(warnMinutes).u64(value).done();
}
// goto-label (0x65): a u16-length string.
export function encodeGotoLabel(label) { return new Writer().string16(label).done(); }
// page-preview (0x52) with its optional 41st byte: 1 = the notes half of a beamer deck.
export function encodeNotesHalfPreview(id, page, maxWidth, maxHeight = 0) {
  return new Writer().bytes(fromHex(id)).u32(page).u16(maxWidth).u16(maxHeight).u8(1).done();
}

// "12:34", "1:02:03", "-0:45".
export function clock(ms) {
  const neg = ms < 0;
  const s = Math.floor(Math.abs(ms) / 1000);
  const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, sec = s % 60;
  const text = h > 0 ? h + ':' + String(m).padStart(2, '0') + ':' + String(sec).padStart(2, '0') : m + ':' + String(sec).padStart(2, '0');
  return (neg ? '-' : '') + text;
}

// The timer as it stands now: the state's figures counted on with this device's clock
// while it runs (receivedAt: when the state arrived, Date.now()).
export function timerNow(t, receivedAt, now = Date.now()) {
  const run = t.running ? Math.max(0, now - receivedAt) : 0;
  const elapsed = t.elapsedMs + run;
  let remaining = null;
  if (t.mode === 'countdown') remaining = (t.durationMs || 0) - elapsed;
  else if (t.mode === 'endTime') remaining = (t.remainingMs || 0) - Math.max(0, now - receivedAt);
  const started = t.running || t.elapsedMs > 0;
  const warning = remaining != null && (t.mode === 'endTime' || started) && remaining <= t.warnMinutes * 60000;
  return { elapsed, remaining, warning, over: remaining != null && remaining < 0 };
}
