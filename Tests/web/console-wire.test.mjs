// core/console-wire.js: the presenter console's bodies (§22), the pdfpc file, the timer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TIMER_ACTION, TIMER_MODE, KEEP_WARNING, encodeTimer, encodeGotoLabel, encodeNotesRequest, encodeNotesLayout, LAYOUT,
  pdfpcFile, clock, timerNow, decodeNotes,
} from '../../Sources/LecternService/Web/core/console-wire.js';

const id = 'ab'.repeat(32);

test('timer, goto-label, notes-request, notes-layout', () => {
  assert.deepEqual([...encodeTimer(TIMER_ACTION.start)], [1, 0, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0]);
  assert.deepEqual([...encodeTimer(TIMER_ACTION.set, TIMER_MODE.countdown, 600000, 2)], [4, 2, 0, 2, 0, 0, 0, 0, 0, 0x09, 0x27, 0xC0]);
  assert.equal(KEEP_WARNING, 0xFFFF);
  assert.deepEqual([...encodeGotoLabel('Q&A')], [0, 3, 0x51, 0x26, 0x41]);
  const req = encodeNotesRequest(id, 3);
  assert.equal(req.length, 36); assert.equal(req[0], 0xab); assert.equal(req[35], 3);
  assert.equal(encodeNotesLayout(id, LAYOUT.auto)[32], 255);
  assert.deepEqual(decodeNotes(new TextEncoder().encode('{"pages":[]}')), { pages: [] });
});

test('the pdfpc file: labels with overlays, typed notes, the talk\'s timing', () => {
  const text = pdfpcFile({ pages: [{ page: 1, label: '1', source: 'typed', text: 'Hello' }, { page: 2, label: '1', source: 'pdf', text: 'x' }, { page: 3, label: '2' }], durationMinutes: 20, layout: 'right' });
  assert.deepEqual(JSON.parse(text), {
    pdfpcFormat: 2, disableMarkdown: true, duration: 20, notesPosition: 'right',
    pages: [{ idx: 0, label: '1', overlay: 0, note: 'Hello' }, { idx: 1, label: '1', overlay: 1 }, { idx: 2, label: '2', overlay: 0 }],
  });
});

test('the clock and the timer counted on with this device\'s clock', () => {
  assert.equal(clock(0), '0:00'); assert.equal(clock(754000), '12:34'); assert.equal(clock(3723000), '1:02:03'); assert.equal(clock(-45000), '-0:45');
  const t = { running: true, elapsedMs: 60000, mode: 'countdown', durationMs: 120000, warnMinutes: 1 };
  assert.deepEqual(timerNow(t, 1000, 1000), { elapsed: 60000, remaining: 60000, warning: true, over: false });
  assert.deepEqual(timerNow(t, 1000, 71000), { elapsed: 130000, remaining: -10000, warning: true, over: true });
  assert.deepEqual(timerNow({ ...t, running: false }, 1000, 71000).elapsed, 60000, 'paused: not counted on');
});
