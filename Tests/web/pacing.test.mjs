// core/pacing.js: a shared capture's pictures, paced at the frame rate on average.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { paceCapture, RATE_SLACK } from '../../Sources/LecternService/Web/core/pacing.js';

// How many of the capture times `times` (µs) are encoded at `rate`.
function encoded(times, rate) {
  let due = -Infinity, n = 0;
  for (const t of times) {
    const [yes, next] = paceCapture(due, t, rate);
    if (yes) { n++; due = next; }
  }
  return n;
}

// A seeded generator: the same jitter each run.
function random(seed) { return () => (seed = (seed * 16807) % 2147483647) / 2147483647; }

test('a 30 fps capture that jitters by ±6 ms loses no picture (a gap of 0.9 frame lost 23 %)', () => {
  const r = random(1);
  const times = Array.from({ length: 3000 }, (_, i) => i * 33_333 + Math.round((r() - 0.5) * 12_000));
  assert.equal(encoded(times, 30), 3000);
});

test('pictures bunched three at a time under load, 30 a second on average, all go', () => {
  const times = [];
  for (let i = 0; i < 100; i++) times.push(i * 100_000, i * 100_000 + 3_000, i * 100_000 + 6_000);
  assert.equal(encoded(times, 30), 300);
});

test('a capture whose clock runs 1 % fast loses nothing (a 33 ms timer for 30 fps)', () => {
  const times = Array.from({ length: 3000 }, (_, i) => i * 33_000);   // 30.3 a second, 99 s
  assert.equal(encoded(times, 30), 3000);
});

test('a faster capture is thinned to the rate, and to a rate the appliance lowered', () => {
  const sixty = Array.from({ length: 6000 }, (_, i) => i * 16_667);   // 100 s
  const at30 = encoded(sixty, 30), at15 = encoded(sixty, 15);
  // At the rate, and no more than its 2 % slack over.
  assert.ok(at30 >= 3000 && at30 <= 3000 * RATE_SLACK + 3, String(at30));
  assert.ok(at15 >= 1500 && at15 <= 1500 * RATE_SLACK + 3, String(at15));
});

test('after a pause the next picture goes at once, without a burst owed', () => {
  let [yes, due] = paceCapture(-Infinity, 0, 30);
  assert.ok(yes);
  [yes, due] = paceCapture(due, 10_000_000, 30);   // 10 s later
  assert.ok(yes);
  assert.equal(due, 10_000_000 + 1_000_000 / (30 * RATE_SLACK));
  // Right after it, a burst of three at most: the rest wait for the rate.
  const after = [10_001_000, 10_002_000, 10_003_000, 10_004_000].map((t) => { const [y, d] = paceCapture(due, t, 30); if (y) due = d; return y; });
  assert.deepEqual(after, [true, true, false, false]);
});
