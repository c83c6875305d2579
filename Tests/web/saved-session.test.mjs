// core/saved-session.js: what a tab keeps across a reload, and a damaged record read as none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sessionText, readSession, SESSION_KEY } from '../../Sources/LecternService/Web/core/saved-session.js';

const session = { name: 'Ana', role: 1, key: new Uint8Array(32).fill(7), salt: new Uint8Array(16).fill(2), rounds: 1000, token: new Uint8Array(16).fill(9) };
const files = [{ id: 'ab'.repeat(32), name: 'deck.pdf', kind: 'pdf', pages: 3 }];

test('a session comes back as it was kept, its files with it', () => {
  assert.equal(SESSION_KEY, 'lectern.session');
  const back = readSession(sessionText(session, files));
  assert.deepEqual(back, { ...session, files });
  const noToken = readSession(sessionText({ ...session, token: null }, []));
  assert.equal(noToken.token, null);
  assert.deepEqual(noToken.files, []);
});

test('nothing kept, a record without a key, or damaged text: no session', () => {
  for (const text of [null, '', 'null', '{', '{"name":"Ana"}', '{"key":"%%%"}', '[]']) assert.equal(readSession(text), null, String(text));
  assert.deepEqual(readSession(JSON.stringify({ ...JSON.parse(sessionText(session, files)), files: 'x' })).files, [], 'files not a list: none');
});
