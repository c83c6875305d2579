// core/backoff.js: the pages' reconnect waits, with the random part passed in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKOFF_MS, backoffDelay } from '../../Sources/LecternService/Web/core/backoff.js';

test('each step waits longer, up to 4 s, plus up to a quarter more', () => {
  assert.deepEqual([0, 1, 2, 3, 4, 50].map((r) => backoffDelay(r, 0)), [500, 1000, 2000, 4000, 4000, 4000]);
  assert.deepEqual([0, 3].map((r) => backoffDelay(r, 0.999999)), [625, 5000]);
  assert.equal(backoffDelay(-1, 0), 500);
  assert.ok(Object.isFrozen(BACKOFF_MS));
});

test('the random part spreads a room of phones over the quarter', () => {
  const waits = new Set(Array.from({ length: 100 }, (_, i) => backoffDelay(2, i / 100)));
  assert.ok(waits.size > 90);
  for (const w of waits) assert.ok(w >= 2000 && w < 2500, String(w));
});
