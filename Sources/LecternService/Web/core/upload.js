// An upload over the link (docs/protocol.md §12): hash and possession proof in one pass,
// upload-begin, chunks from the offset the appliance gives, upload-finish.

import { utf8, hex } from './bytes.js';
import { C, MAX_CHUNK } from './protocol.js';
import { Sha256 } from './sha256.js';
import { possessionProof } from './crypto.js';
import { encodeUploadBegin, decodeUploadReady, encodeUploadChunk, decodeUploadStored } from './wire.js';
import { ConnectionLost } from './link.js';

// Chunks of 256 KiB (the protocol allows up to MAX_CHUNK): the service confirms what is in
// the file as each one is written, so the bar moves in small steps on a slow Wi-Fi.
export const CHUNK = Math.min(MAX_CHUNK, 256 << 10);

// The stage of conversion-progress at which page 1 may be presented (§30.8).
export const FIRST_PAGE = 3;

// Uploads a File (or any Blob with a name) on `link`; resolves to { id, name, kind, pages,
// durationMs, size }, with `converting: true` for a file converted on the appliance whose
// first page may be presented while the rest converts. report(phase, done, total) drives
// the progress bar; `later` hears how such a conversion ends (see finishUpload).
export async function upload(link, file, report, later = {}) {
  const size = file.size;
  const hasher = new Sha256();
  const possession = possessionProof(link.hello.challenge);
  const step = 4 << 20;
  for (let o = 0; o < size; o += step) {
    const part = new Uint8Array(await file.slice(o, Math.min(size, o + step)).arrayBuffer());
    hasher.update(part); possession.update(part);
    report('hash', Math.min(size, o + step), size);
    if (link.closed) throw new ConnectionLost('The connection to the appliance was lost.');
  }
  const id = hasher.digest(), proof = possession.digest();
  const nameBytes = utf8.encode(uploadName(file.name));
  const begin = encodeUploadBegin(id, size, proof, nameBytes);

  const beginTag = link.newTag();
  const ready = await new Promise((resolve, reject) => {
    link.pending.set(beginTag, { resolve, reject });
    link.send(C.uploadBegin, begin, beginTag);
  });
  const { status, offset, kind, pages, durationMs } = decodeUploadReady(ready.body);
  if (status === 1) {
    report('send', size, size);
    return { id: hex(id), name: uploadName(file.name), kind: kind === 2 ? 'clip' : 'pdf', pages, durationMs, size };
  }

  // The bar follows the bytes the appliance says are in the file (upload-progress), not
  // what the browser took: those may still be in its socket, or on the Wi-Fi.
  let confirmed = offset;
  link.progress.set(beginTag, (stored) => {
    if (stored > confirmed) { confirmed = stored; report('send', confirmed, size); }
  });
  let chunkError = null;
  const chunkTags = [];
  try {
    let sent = offset;
    report('send', offset, size);
    while (sent < size) {
      if (chunkError) throw chunkError;
      if (link.closed) throw new ConnectionLost('The connection to the appliance was lost.');
      // Keep at most a few MiB queued in the browser: a dropped connection loses little.
      if (link.ws.bufferedAmount > (4 << 20)) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        continue;
      }
      const end = Math.min(size, sent + CHUNK);
      const data = new Uint8Array(await file.slice(sent, end).arrayBuffer());
      const body = encodeUploadChunk(id, sent, data);
      const tag = link.newTag();
      // No reply on success; an error with this tag stops the upload.
      link.pending.set(tag, { resolve() {}, reject() {}, onChunkError: (e) => { chunkError = chunkError || e; } });
      chunkTags.push(tag);
      link.send(C.uploadChunk, body, tag);
      sent = end;
    }
    // Every byte handed over: wait for the appliance to confirm the last one (its last
    // upload-progress comes before the answer to upload-finish, §12.1).
    while (confirmed < size && !link.closed && !chunkError) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (chunkError) throw chunkError;
    if (link.closed) throw new ConnectionLost('The connection to the appliance was lost.');
    report('verify', size, size);
    // A file converted on the appliance is ready once its first page is (§30.8).
    let stored;
    try { stored = await finishUpload(link, id, beginTag, later); } catch (e) { throw chunkError || e; }
    if (chunkError) throw chunkError;
    if (stored.firstPage) {
      return { id: hex(id), name: uploadName(file.name), kind: 'pdf', pages: stored.firstPage.pages, durationMs: 0, size, converting: true };
    }
    const s = decodeUploadStored(stored.body);
    return { id: hex(id), name: uploadName(file.name), kind: s.kind === 2 ? 'clip' : 'pdf', pages: s.pages, durationMs: s.durationMs, size };
  } finally {
    link.progress.delete(beginTag);
    for (const t of chunkTags) link.pending.delete(t);
  }
}

// The upload-finish of file `id` (upload-begin's tag `beginTag`): resolves to { body } of
// its upload-stored, or — for a file converted on the appliance — to { firstPage: { pages,
// total } } as soon as its first page may be presented. The rest converts on, and its end
// goes to `later`: stored(body, idHex) with the whole deck's upload-stored, or failed(error, idHex) (the
// answer to the upload-finish, which still comes; a lost connection is not told: the state
// says how it ends).
export function finishUpload(link, id, beginTag, later = {}) {
  return new Promise((resolve, reject) => {
    let early = false;
    link.converting.set(beginTag, (p) => {
      if (p.stage !== FIRST_PAGE || early) return;
      early = true;
      resolve({ firstPage: { pages: Math.max(1, p.done), total: p.total } });
    });
    const tag = link.newTag();
    link.pending.set(tag, {
      resolve: (reply) => {
        link.converting.delete(beginTag);
        if (!early) { resolve(reply); return; }
        if (reply.command === C.uploadStored && later.stored) later.stored(reply.body, hex(id));
      },
      reject: (e) => {
        link.converting.delete(beginTag);
        if (!early) { reject(e); return; }
        if (!(e instanceof ConnectionLost) && later.failed) later.failed(e, hex(id));
      },
    });
    link.send(C.uploadFinish, id, tag);
  });
}

// A file name the appliance accepts (§2.4): no control characters, no '/', 1–255 bytes.
export function uploadName(name) {
  let s = (name || '').replace(/[\u0000-\u001f\u007f-\u009f]/g, '').replace(/\//g, '_').trim();
  if (!s) s = 'upload';
  while (utf8.encode(s).length > 255) s = Array.from(s).slice(0, -1).join('');
  return s;
}
