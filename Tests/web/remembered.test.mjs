// core/remembered.js: joining again without typing (§28.3), against an in-memory storage
// with localStorage's shape, with the clock passed in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { remember, recall, forget, noteMeeting, REMEMBER_MS, REMEMBERED_KEY } from '../../Sources/LecternService/Web/core/remembered.js';

class Store {
  constructor() { this.m = new Map(); }
  getItem(k) { return this.m.has(k) ? this.m.get(k) : null; }
  setItem(k, v) { this.m.set(k, String(v)); }
  removeItem(k) { this.m.delete(k); }
}
const session = { name: 'Ana', role: 2, key: new Uint8Array(32).fill(5), salt: new Uint8Array(16).fill(1), rounds: 1000 };

test('the key, never the passcode, comes back for 12 hours, as a new device (no token)', () => {
  const s = new Store();
  remember(session, 'Room 1', null, 1000, s);
  assert.ok(!s.getItem(REMEMBERED_KEY).includes('passcode'));
  const r = recall(1000 + REMEMBER_MS - 1, s);
  assert.deepEqual(r, { room: 'Room 1', meeting: null, name: 'Ana', role: 2, key: session.key, salt: session.salt, rounds: 1000, token: null });
  assert.equal(recall(1000 + REMEMBER_MS, s), null, '12 hours on: forgotten');
  assert.equal(s.getItem(REMEMBERED_KEY), null);
});

test('a clock gone backwards, damaged text, or Leave: forgotten', () => {
  const s = new Store();
  remember(session, 'Room 1', null, 5000, s);
  assert.equal(recall(4000, s), null);
  s.setItem(REMEMBERED_KEY, '{not json');
  assert.equal(recall(1, s), null);
  assert.equal(s.getItem(REMEMBERED_KEY), null);
  remember(session, 'Room 1', null, 1, s);
  forget(s);
  assert.equal(recall(2, s), null);
});

test('the first meeting seen is kept with the key; another one ends it', () => {
  const s = new Store();
  assert.equal(noteMeeting('m1', s), 'none');
  remember(session, 'Room 1', null, 1, s);
  assert.equal(noteMeeting('m1', s), 'kept');
  assert.equal(noteMeeting('m1', s), 'same');
  assert.equal(recall(2, s).meeting, 'm1');
  assert.equal(noteMeeting('m2', s), 'ended');
  assert.equal(recall(2, s), null);
});

test('no storage at all (Node has no localStorage, nor does a locked-down browser): nothing kept, nothing thrown', () => {
  assert.equal(recall(1), null);
  remember(session, 'Room 1');
  assert.equal(noteMeeting('m1'), 'none');
});
