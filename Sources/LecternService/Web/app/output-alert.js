// The output's state (docs/protocol.md §21): when the projector is unplugged or switched
// off, every device in the room says so at once, in a bar of its own under the header;
// the service puts the same slide back when the display returns, and the bar goes.

import { app } from './state.js';

export const OUTPUT_LOST = 'The projector is disconnected';

function bar() {
  let el = document.getElementById('output-alert');
  if (el) return el;
  el = document.createElement('div');
  el.id = 'output-alert';
  el.className = 'banner output-alert';
  el.setAttribute('role', 'alert');
  el.hidden = true;
  const anchor = document.getElementById('banner');
  if (anchor && anchor.parentNode) anchor.parentNode.insertBefore(el, anchor.nextSibling); else document.body.prepend(el);
  return el;
}

export function renderOutputAlert() {
  const o = app.state && app.phase !== 'login' ? app.state.output : null;
  const lost = !!o && o.connected === false;
  const el = bar();
  el.hidden = !lost;
  el.textContent = lost ? OUTPUT_LOST + ' — the slide comes back on it when it is plugged in again.' : '';
  document.body.classList.toggle('output-lost', lost);
}
