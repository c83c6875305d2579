// core/link.js against a fake socket (appliance.mjs): the hello, pings, requests matched
// to replies by tag, unsolicited frames to their handlers, the watchdog, and what a dead
// or lying connection does to what is waiting.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { Link, ConnectionLost, OPEN_TIMEOUT_MS } from '../../Sources/LecternService/Web/core/link.js';
import { C, ERR } from '../../Sources/LecternService/Web/core/protocol.js';
import { ServerError, encodeFrame, Writer } from '../../Sources/LecternService/Web/core/wire.js';
import { createHmac } from 'node:crypto';
import { FakeSocket, openLink, errorBody, stateBody, CHALLENGE } from './appliance.mjs';

test('open resolves with the hello, on a socket made by the constructor it was given', async () => {
  const { link, sock } = await openLink({}, { room: 'Room 7' });
  assert.equal(sock.url, 'ws://appliance.test/ws');
  assert.equal(link.hello.room, 'Room 7');
  assert.ok(link.isOpen);
  assert.equal(sock.sent.length, 0, 'nothing is sent before the page asks');
  link.close();
});

test('a ping is answered at once with a pong of the same tag and body', async () => {
  const { link, sock } = await openLink();
  sock.reply(C.ping, 0x0042, Uint8Array.of(1, 2, 3, 4));
  assert.equal(sock.frames.length, 1);
  assert.deepEqual({ ...sock.frames[0], body: [...sock.frames[0].body] }, { command: C.pong, device: 0xFF, tag: 0x42, body: [1, 2, 3, 4] });
  link.close();
});

test('replies are matched to requests by tag, in any order; a failure reply rejects with its error', async () => {
  const { link, sock } = await openLink();
  const a = link.request(C.present, Uint8Array.of(1));
  const b = link.request(C.control, Uint8Array.of(2));
  const c = link.request(C.clear, new Uint8Array(0));
  const [fa, fb, fc] = sock.frames;
  assert.equal(new Set([fa.tag, fb.tag, fc.tag]).size, 3, 'each request its own tag');
  sock.reply(C.controlOK, fb.tag);
  sock.reply(C.error, fc.tag, errorBody(ERR.noFloor, 'You need the floor for that.'));
  sock.reply(C.presentOK, fa.tag, Uint8Array.of(9));
  assert.equal((await b).command, C.controlOK);
  assert.deepEqual([...(await a).body], [9]);
  await assert.rejects(c, (e) => e instanceof ServerError && e.code === ERR.noFloor && e.message === 'You need the floor for that.');
  link.close();
});

test('frames cut anywhere, or several in one message, all arrive', async () => {
  const { link, sock, seen } = await openLink();
  const s1 = encodeFrame(C.state, 0, 0, stateBody({ revision: 1 }));
  const s2 = encodeFrame(C.state, 0, 0, stateBody({ revision: 2 }));
  const all = new Uint8Array(s1.length + s2.length);
  all.set(s1); all.set(s2, s1.length);
  sock.deliver(all.subarray(0, 3));
  sock.deliver(all.subarray(3, s1.length + 5));
  assert.deepEqual(seen.states, [{ revision: 1 }]);
  sock.deliver(all.subarray(s1.length + 5));
  assert.deepEqual(seen.states, [{ revision: 1 }, { revision: 2 }]);
  link.close();
});

test('unsolicited frames go to their handlers; an error that closes says why the link is gone', async () => {
  const { link, sock, seen } = await openLink();
  sock.reply(C.floorGranted, 0, Uint8Array.of(2, 5));
  sock.reply(C.viewerPointer, 0, Uint8Array.of(7));
  const waiting = link.request(C.floorRequest, new Uint8Array(0));
  sock.reply(C.error, 0, errorBody(ERR.kicked, 'A moderator removed this device.', { closes: true }));
  sock.close();
  assert.deepEqual(seen.notes, [{ granted: true, reason: 2, by: 5 }]);
  assert.deepEqual(seen.messages.map((m) => m.command), [C.viewerPointer]);
  assert.equal(seen.errors[0].code, ERR.kicked);
  await assert.rejects(waiting, (e) => e.code === ERR.kicked, 'what waited learns the reason, not just "lost"');
  assert.equal(seen.closed, 1);
});

test('a lost connection rejects what waits with ConnectionLost, once; later requests too', async () => {
  const { link, sock, seen } = await openLink();
  const waiting = link.request(C.present, Uint8Array.of(1));
  sock.close();
  link.close();
  await assert.rejects(waiting, ConnectionLost);
  await assert.rejects(link.request(C.present, Uint8Array.of(1)), ConnectionLost);
  assert.equal(seen.closed, 1);
  assert.equal(link.isOpen, false);
  assert.equal(link.pending.size, 0);
});

test('a frame length no frame can have closes the link', async () => {
  const { link, sock, seen } = await openLink();
  const bad = new Uint8Array(8);
  new DataView(bad.buffer).setUint32(4, 0x7FFFFFFF);
  sock.deliver(bad);
  assert.equal(link.closed, true);
  assert.equal(sock.readyState, 3);
  assert.equal(seen.closed, 1);
});

test('register sends the proof of §7.2 and takes the device id it is given', async () => {
  const { link, sock } = await openLink();
  const key = new Uint8Array(32).fill(3);
  sock.onFrame = (f) => {
    if (f.command === C.register) sock.reply(C.registerOK, f.tag, new Writer().u8(6).u8(1).u8(0).bytes(new Uint8Array(16).fill(1)).done(), 0xFF);
  };
  const ok = await link.register(1, 'Ana', key, null);
  const reg = sock.frames[0];
  const proof = reg.body.subarray(3, 35);
  const mac = Buffer.concat([Buffer.from('lectern-register-v1'), CHALLENGE, Buffer.of(1, 0, 3), Buffer.from('Ana'), Buffer.of(0)]);
  assert.deepEqual(Buffer.from(proof), createHmac('sha256', key).update(mac).digest());
  assert.equal(ok.id, 6);
  assert.ok(link.registered);
  const next = link.control(0x01);
  assert.equal(sock.frames.at(-1).device, 6, 'later frames carry the device id');
  link.close();
  await assert.rejects(next, ConnectionLost);
});

test('a picture in screenshot-data pieces resolves once whole, as a PNG or a JPEG', async () => {
  const { link, sock } = await openLink();
  const shot = link.screenshot(0, 0);
  const tag = sock.frames[0].tag;
  const piece = (offset, data) => new Writer().u32(4).u32(3).u32(6).u32(offset).bytes(Uint8Array.from(data)).done();
  sock.reply(C.screenshotData, tag, piece(0, [0xFF, 0xD8, 0xFF]));
  assert.ok(link.pending.has(tag), 'half a picture: still waiting');
  sock.reply(C.screenshotData, tag, piece(3, [1, 2, 3]));
  const s = await shot;
  assert.equal(s.width, 4); assert.equal(s.height, 3); assert.equal(s.bytes, 6);
  assert.equal(s.png.type, 'image/jpeg');
  assert.deepEqual([...new Uint8Array(await s.png.arrayBuffer())], [0xFF, 0xD8, 0xFF, 1, 2, 3]);
  link.close();
});

test('tags wrap from 0xFFFF to 1 and skip those in use', async () => {
  const { link } = await openLink();
  link.nextTag = 0xFFFE;
  link.pending.set(1, {});
  assert.equal(link.newTag(), 0xFFFF);
  assert.equal(link.newTag(), 2, 'not 0 (unsolicited), not 1 (waiting)');
  link.pending.clear();
  link.close();
});

test('the watchdog closes a link silent for the hello\'s time-out, not one that hears pings', async (t) => {
  mock.timers.enable({ apis: ['setInterval', 'setTimeout', 'Date'] });
  t.after(() => mock.timers.reset());
  const { link, sock, seen } = await openLink({}, { timeoutMs: 6000 });
  for (let i = 0; i < 10; i++) {
    mock.timers.tick(2000);
    sock.reply(C.ping, 0, new Uint8Array(0));
  }
  assert.equal(seen.closed, 0, 'pings every 2 s keep it open');
  mock.timers.tick(6000);
  assert.equal(seen.closed, 0, 'at the time-out itself, not yet');
  mock.timers.tick(1000);
  assert.equal(seen.closed, 1, 'silent past the time-out: closed');
  assert.equal(link.isOpen, false);
});

test('a connection that never says hello is given up after OPEN_TIMEOUT_MS', async (t) => {
  mock.timers.enable({ apis: ['setInterval', 'setTimeout', 'Date'] });
  t.after(() => mock.timers.reset());
  const link = new Link('ws://appliance.test/ws', { onClose() {} }, { WebSocket: FakeSocket });
  const opening = link.open();
  FakeSocket.last.accept();
  mock.timers.tick(OPEN_TIMEOUT_MS - 1);
  assert.equal(link.closed, false);
  mock.timers.tick(1);
  await assert.rejects(opening, (e) => e instanceof ConnectionLost && /reach the appliance/.test(e.message));
});
