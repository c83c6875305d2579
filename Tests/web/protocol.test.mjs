// core/protocol.js: the tables and what is derived from them (C, ERR, FAILURES). That the
// rows are the Swift tables is ProtocolTableDriftTests' (Tests/LecternWebTests).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMMANDS, ERRORS, C, ERR, FAILURES, MAX_FRAME, MAX_CHUNK } from '../../Sources/LecternService/Web/core/protocol.js';

test('every command byte and name is there once, and C is derived from the rows', () => {
  assert.equal(new Set(COMMANDS.map((r) => r[0])).size, COMMANDS.length);
  assert.equal(new Set(COMMANDS.map((r) => r[1])).size, COMMANDS.length);
  assert.equal(Object.keys(C).length, COMMANDS.length);
  assert.equal(C.register, 0x01);
  assert.equal(C.registerOK, 0x02);
  assert.equal(C.screenshotData, 0x51);
  assert.equal(C.shareKeyRequest, 0xD4);
  for (const [byte, name, sender] of COMMANDS) {
    assert.ok(byte >= 0 && byte <= 0xFF, name);
    assert.match(sender, /^(client|server|either)$/);
  }
});

test('every error code is there once, and ERR is derived from the rows', () => {
  assert.equal(new Set(ERRORS.map((r) => r[0])).size, ERRORS.length);
  assert.equal(Object.keys(ERR).length, ERRORS.length);
  assert.equal(ERR.wrongPasscode, 0x0101);
  assert.equal(ERR.meetingEnded, 0x1001);
});

test('the tables cannot be changed by a module that imports them', () => {
  assert.ok(Object.isFrozen(COMMANDS) && Object.isFrozen(ERRORS) && Object.isFrozen(C) && Object.isFrozen(ERR));
  assert.throws(() => { 'use strict'; C.register = 9; });
});

test('the failure replies and the limits', () => {
  assert.deepEqual([...FAILURES].sort(), [C.registerFailed, C.controlFailed, C.error].sort());
  assert.equal(MAX_FRAME, 1114112);
  assert.equal(MAX_CHUNK, 1048576);
});
