// core/upload-speed.js: the rate and the time left, from confirmed bytes over the last
// few seconds (the clock passed in).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UploadSpeed, formatRate, formatLeft } from '../../Sources/LecternService/Web/core/upload-speed.js';

test('nothing to tell before 300 ms of samples or while nothing moves', () => {
  const s = new UploadSpeed();
  assert.equal(s.describe(0, 1e6, 1000), '');
  assert.equal(s.describe(1000, 1e6, 1200), '');
  assert.equal(s.describe(1000, 1e6, 2000), ' · 1 kB/s · 999 s left'.replace('999 s', '16 min 39 s'));
});

test('the rate over the window, and the time left', () => {
  const s = new UploadSpeed(5000);
  s.describe(0, 10e6, 0);
  assert.equal(s.describe(2e6, 10e6, 1000), ' · 2.0 MB/s · 4 s left');
  assert.equal(s.describe(10e6, 10e6, 5000), ' · 2.0 MB/s', 'done: no time left');
  // An old fast start is forgotten after the window.
  const slow = new UploadSpeed(5000);
  slow.describe(0, 100e6, 0);
  slow.describe(50e6, 100e6, 1000);
  slow.describe(51e6, 100e6, 10000);
  assert.equal(slow.describe(52e6, 100e6, 11000), ' · 1.0 MB/s · 48 s left');
});

test('the words', () => {
  assert.equal(formatRate(999), '1 kB/s');
  assert.equal(formatRate(1.25e6), '1.3 MB/s');
  assert.equal(formatLeft(0.2), '1 s left');
  assert.equal(formatLeft(125), '2 min 5 s left');
  assert.equal(formatLeft(120), '2 min left');
});
