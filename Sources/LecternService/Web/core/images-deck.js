// Photos and images chosen together become one deck, in the order chosen (docs/protocol.md
// §30.9): images-deck names the uploads; conversion-progress comes with its tag while the
// appliance makes the deck, then upload-stored.

import { utf8, fromHex, hex } from './bytes.js';
import { C } from './protocol.js';
import { ConnectionLost } from './link.js';
import { Writer, decodeUploadStored } from './wire.js';

// The name a deck of these files gets: "IMG_0001.heic and 2 more" (ImageSet.deckName).
export function deckName(names) {
  if (!names.length) return 'Images';
  const more = names.length > 1 ? ' and ' + (names.length - 1) + ' more' : '';
  let head = Array.from(names[0]);
  while (utf8.encode(head.join('') + more).length > 255) head = head.slice(0, -1);
  return head.join('') + more;
}

export function encodeImagesDeck(ids, name) {
  const w = new Writer().u16(ids.length);
  for (const id of ids) w.bytes(fromHex(id));
  const n = utf8.encode(name);
  return w.u16(n.length).bytes(n).done();
}

// Resolves to the new deck as the files list keeps it; `report()` is called as it is made.
export function makeImagesDeck(link, items, name, report) {
  if (!link.isOpen) return Promise.reject(new ConnectionLost('Not connected to the appliance.'));
  return new Promise((resolve, reject) => {
    const tag = link.newTag();
    link.pending.set(tag, {
      resolve: ({ command, body }) => {
        if (command !== C.uploadStored) { reject(new Error('unexpected reply ' + command)); return; }
        const s = decodeUploadStored(body);
        resolve({ id: hex(body.subarray(0, 32)), name, kind: 'pdf', pages: s.pages, durationMs: 0, size: 0 });
      },
      reject,
      onFrame: (command) => { if (command === C.conversionProgress) { report(); return true; } return false; },
    });
    link.send(C.imagesDeck, encodeImagesDeck(items.map((i) => i.id), name), tag);
  });
}

