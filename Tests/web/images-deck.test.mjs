// core/images-deck.js against a fake appliance (appliance.mjs): photos chosen together
// become one deck (§30.9): the request's body, progress while it is made, the new deck.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deckName, encodeImagesDeck, makeImagesDeck } from '../../Sources/LecternService/Web/core/images-deck.js';
import { C, ERR } from '../../Sources/LecternService/Web/core/protocol.js';
import { Writer, Reader, ServerError } from '../../Sources/LecternService/Web/core/wire.js';
import { ConnectionLost } from '../../Sources/LecternService/Web/core/link.js';
import { openLink, errorBody } from './appliance.mjs';

const a = 'aa'.repeat(32), b = 'bb'.repeat(32), deck = 'cd'.repeat(32);

test('the deck\'s name: the first file and how many more, at most 255 bytes', () => {
  assert.equal(deckName([]), 'Images');
  assert.equal(deckName(['IMG_0001.heic']), 'IMG_0001.heic');
  assert.equal(deckName(['IMG_0001.heic', 'b', 'c']), 'IMG_0001.heic and 2 more');
  const long = deckName(['é'.repeat(300), 'x']);
  assert.ok(new TextEncoder().encode(long).length <= 255);
  assert.ok(long.endsWith(' and 1 more'));
});

test('images-deck: the count, each id, the name', () => {
  const body = encodeImagesDeck([a, b], 'Trip');
  const r = new Reader(body);
  assert.equal(r.u16(), 2);
  assert.equal(Buffer.from(r.bytes(32)).toString('hex'), a);
  assert.equal(Buffer.from(r.bytes(32)).toString('hex'), b);
  assert.equal(r.string16(), 'Trip');
  assert.equal(r.rest().length, 0);
});

test('progress while the deck is made, then the deck as the files list keeps it', async () => {
  const { link, sock } = await openLink();
  let reports = 0;
  const made = makeImagesDeck(link, [{ id: a }, { id: b }], 'Trip', () => { reports++; });
  const req = sock.frames[0];
  assert.equal(req.command, C.imagesDeck);
  const progress = new Writer().bytes(new Uint8Array(32)).u8(2).u8(0).u32(1).u32(2).u32(0).u32(0).u8(3).bytes(new TextEncoder().encode('jpg')).done();
  sock.reply(C.conversionProgress, req.tag, progress);
  sock.reply(C.conversionProgress, req.tag, progress);
  assert.equal(reports, 2);
  sock.reply(C.uploadStored, req.tag, new Writer().bytes(Buffer.from(deck, 'hex')).u8(1).u64(0).u32(2).u32(0).done());
  assert.deepEqual(await made, { id: deck, name: 'Trip', kind: 'pdf', pages: 2, durationMs: 0, size: 0 });
  assert.equal(link.pending.size, 0);
  link.close();
});

test('the appliance\'s refusal, and a link that is not open', async () => {
  const { link, sock } = await openLink();
  const made = makeImagesDeck(link, [{ id: a }], 'Trip', () => {});
  sock.reply(C.error, sock.frames[0].tag, errorBody(ERR.tooManyImages, 'At most 200 images make a deck.'));
  await assert.rejects(made, (e) => e instanceof ServerError && e.code === ERR.tooManyImages);
  link.close();
  await assert.rejects(makeImagesDeck(link, [{ id: a }], 'Trip', () => {}), ConnectionLost);
});
