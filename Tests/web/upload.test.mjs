// core/upload.js against a fake appliance on a fake socket (appliance.mjs): the file's
// hash and possession proof, upload-begin, chunks from the offset the appliance gives,
// progress from what it confirms, upload-finish; a file it has already; a chunk refused;
// a converted file whose first page may be shown before the rest is converted (§30.8).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { upload, uploadName, CHUNK, FIRST_PAGE } from '../../Sources/LecternService/Web/core/upload.js';
import { C, ERR } from '../../Sources/LecternService/Web/core/protocol.js';
import { Reader, Writer, ServerError } from '../../Sources/LecternService/Web/core/wire.js';
import { ConnectionLost } from '../../Sources/LecternService/Web/core/link.js';
import { openLink, errorBody, CHALLENGE } from './appliance.mjs';

// Bytes with no period (a chunk of one place differs from a chunk of any other).
function fileBytes(n) {
  const b = new Uint8Array(n);
  let x = 0x9E3779B9;
  for (let i = 0; i < n; i++) { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; b[i] = x & 255; }
  return b;
}

// The appliance's side of an upload. `offset`: what it has already (upload-ready);
// `have`: it has the whole file; `refuseChunk`: the index of a chunk answered with an error;
// `convert`: the file is converted, its first page ready before the upload-stored.
function appliance(sock, size, { offset = 0, have = false, refuseChunk = -1, convert = false } = {}) {
  const a = { begin: null, chunks: [], stored: offset, finishTag: 0 };
  let beginTag = 0;
  const later = (fn) => queueMicrotask(fn);   // answers come after the send returns, as on a socket
  sock.onFrame = (f) => {
    const r = new Reader(f.body);
    if (f.command === C.uploadBegin) {
      const id = r.bytes(32).slice(), declared = r.u64(); r.u8();
      const proof = r.bytes(32).slice(), name = new TextDecoder().decode(r.bytes(r.u16()));
      a.begin = { id, declared, proof, name };
      beginTag = f.tag;
      later(() => sock.reply(C.uploadReady, f.tag, new Writer().bytes(id).u8(have ? 1 : 0).u64(have ? size : offset).u8(1).u32(have ? 12 : 0).u32(0).done()));
    } else if (f.command === C.uploadChunk) {
      r.bytes(32);
      const at = r.u64(), data = r.rest().slice();
      const index = a.chunks.length;
      a.chunks.push({ at, data });
      if (index === refuseChunk) { later(() => sock.reply(C.error, f.tag, errorBody(ERR.quotaFull, 'The appliance is full.'))); return; }
      a.stored = at + data.length;
      later(() => sock.reply(C.uploadProgress, beginTag, new Writer().bytes(a.begin.id).u64(a.stored).done()));
    } else if (f.command === C.uploadFinish) {
      a.finishTag = f.tag;
      const stored = () => sock.reply(C.uploadStored, f.tag, new Writer().bytes(a.begin.id).u8(1).u64(size).u32(convert ? 30 : 12).u32(0).done());
      if (convert) {
        const progress = (stage, done) => new Writer().bytes(a.begin.id).u8(stage).u8(0).u32(done).u32(30).u32(0).u32(0).u8(4).bytes(new TextEncoder().encode('pptx')).done();
        later(() => { sock.reply(C.conversionProgress, beginTag, progress(1, 0)); sock.reply(C.conversionProgress, beginTag, progress(FIRST_PAGE, 1)); });
        a.finish = stored;   // the test sends it when it wants
      } else later(stored);
    }
  };
  return a;
}

test('a file goes up in chunks, with its hash and possession proof, the bar following what the appliance confirms', async () => {
  const { link, sock } = await openLink();
  const bytes = fileBytes(CHUNK * 2 + 1000);
  const a = appliance(sock, bytes.length);
  const seen = [];
  const item = await upload(link, new File([bytes], 'Quarterly/results.pdf'), (phase, done, total) => seen.push([phase, done, total]));
  assert.deepEqual(Buffer.from(a.begin.id), createHash('sha256').update(bytes).digest());
  assert.deepEqual(Buffer.from(a.begin.proof), createHmac('sha256', CHALLENGE).update('lectern-possession-v1').update(bytes).digest());
  assert.equal(a.begin.declared, bytes.length);
  assert.equal(a.begin.name, 'Quarterly_results.pdf');
  assert.deepEqual(a.chunks.map((c) => [c.at, c.data.length]), [[0, CHUNK], [CHUNK, CHUNK], [2 * CHUNK, 1000]]);
  assert.deepEqual(Buffer.concat(a.chunks.map((c) => c.data)), Buffer.from(bytes));
  assert.deepEqual(item, { id: Buffer.from(a.begin.id).toString('hex'), name: 'Quarterly_results.pdf', kind: 'pdf', pages: 12, durationMs: 0, size: bytes.length });
  const sends = seen.filter((s) => s[0] === 'send').map((s) => s[1]);
  assert.deepEqual(sends, [0, CHUNK, 2 * CHUNK, bytes.length], 'the bar moves by what the appliance confirmed');
  assert.deepEqual(seen.at(-1), ['verify', bytes.length, bytes.length]);
  assert.equal(link.pending.size, 0, 'nothing left waiting');
  assert.equal(link.progress.size, 0);
  link.close();
});

test('an interrupted upload goes on from the offset the appliance has', async () => {
  const { link, sock } = await openLink();
  const bytes = fileBytes(CHUNK + 500);
  const a = appliance(sock, bytes.length, { offset: CHUNK });
  await upload(link, new File([bytes], 'deck.pdf'), () => {});
  assert.deepEqual(a.chunks.map((c) => [c.at, c.data.length]), [[CHUNK, 500]]);
  assert.deepEqual(Buffer.from(a.chunks[0].data), Buffer.from(bytes.subarray(CHUNK)));
  link.close();
});

test('a file the appliance has already is not sent again', async () => {
  const { link, sock } = await openLink();
  const bytes = fileBytes(5000);
  const a = appliance(sock, bytes.length, { have: true });
  const item = await upload(link, new File([bytes], 'deck.pdf'), () => {});
  assert.equal(a.chunks.length, 0);
  assert.equal(a.finishTag, 0, 'no upload-finish either');
  assert.equal(item.pages, 12);
  link.close();
});

test('a refused chunk stops the upload with the appliance\'s reason', async () => {
  const { link, sock } = await openLink();
  const bytes = fileBytes(CHUNK * 3);
  appliance(sock, bytes.length, { refuseChunk: 1 });
  await assert.rejects(upload(link, new File([bytes], 'big.pdf'), () => {}), (e) => e instanceof ServerError && e.code === ERR.quotaFull);
  assert.equal(link.progress.size, 0);
  link.close();
});

test('a connection lost mid-upload rejects with ConnectionLost', async () => {
  const { link, sock } = await openLink();
  const bytes = fileBytes(CHUNK * 2);
  const a = appliance(sock, bytes.length);
  const inner = sock.onFrame;
  sock.onFrame = (f) => { if (f.command === C.uploadChunk && a.chunks.length === 1) { sock.close(); return; } inner(f); };
  await assert.rejects(upload(link, new File([bytes], 'deck.pdf'), () => {}), ConnectionLost);
});

test('a converted file resolves at its first page; how the conversion ends goes to `later`', async () => {
  const { link, sock } = await openLink();
  const bytes = fileBytes(3000);
  const a = appliance(sock, bytes.length, { convert: true });
  const ends = [];
  const item = await upload(link, new File([bytes], 'talk.pptx'), () => {}, { stored: (body, id) => ends.push(['stored', id, body.length]), failed: (e) => ends.push(['failed', e]) });
  assert.equal(item.converting, true);
  assert.equal(item.pages, 1);
  assert.deepEqual(ends, [], 'the rest converts on');
  a.finish();
  assert.deepEqual(ends, [['stored', item.id, 32 + 1 + 8 + 4 + 4]]);
  assert.equal(link.converting.size, 0);
  link.close();
});

test('a converted file whose conversion fails after its first page: `later` hears why', async () => {
  const { link, sock } = await openLink();
  const bytes = fileBytes(3000);
  const a = appliance(sock, bytes.length, { convert: true });
  const ends = [];
  await upload(link, new File([bytes], 'talk.pptx'), () => {}, { failed: (e, id) => ends.push([e.code, id]) });
  sock.reply(C.error, a.finishTag, errorBody(ERR.conversionTimedOut, 'Converting took too long.'));
  assert.deepEqual(ends, [[ERR.conversionTimedOut, Buffer.from(a.begin.id).toString('hex')]]);
  link.close();
});

test('file names the appliance accepts: no control characters, no slash, at most 255 bytes', () => {
  assert.equal(uploadName('a\u0000b\nc/d.pdf'), 'abc_d.pdf');
  assert.equal(uploadName('  '), 'upload');
  const long = uploadName('é'.repeat(200));
  assert.ok(new TextEncoder().encode(long).length <= 255);
  assert.equal(long, 'é'.repeat(127));
});
