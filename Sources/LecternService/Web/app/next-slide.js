// The next slide: page n+1 of the deck on screen, as the output will show it (§6.9).

import { $ } from './dom.js';
import { app } from './state.js';

const NEXT_WIDTH = 480;   // sharp on a phone at 2× and a laptop column alike

export async function refreshNext() {
  const screen = app.phase === 'in' && app.state ? app.state.screen : null;
  const pdf = screen && screen.content && screen.content.kind === 'pdf' && screen.page < screen.pageCount;
  const key = pdf ? screen.content.id + '#' + (screen.page + 1) : '';
  const next = app.next;
  if (key === next.key) return;
  next.key = key;
  const serial = ++next.serial;
  const box = $('upnext');
  if (!key) { box.hidden = true; return; }
  $('next-page').textContent = 'Page ' + (screen.page + 1) + ' of ' + screen.pageCount;
  try {
    const shot = await app.link.pagePreview(screen.content.id, screen.page + 1, NEXT_WIDTH);
    if (serial !== next.serial) return;   // the screen moved on meanwhile
    const url = URL.createObjectURL(shot.png);
    const img = $('next-img');
    img.onload = () => { if (next.url && next.url !== url) URL.revokeObjectURL(next.url); next.url = url; };
    img.src = url;
    next.png = shot.png; next.width = shot.width; next.height = shot.height;
    box.hidden = false;
    next.done = key;
  } catch (e) {
    // Only the deck's uploader and moderators see what comes next (§6.9); for everybody
    // else, and if the appliance can't render it, the page number below the picture says enough.
    if (serial === next.serial) { box.hidden = true; next.done = key; }
  }
}
