// Messages for people: the toast, the banner, and errors in words.

import { $ } from './dom.js';
import { ServerError } from './wire.js';
import { ConnectionLost } from './link.js';

let toastTimer = null;

// The toast: in the page's "Messages" region, above the bottom bar, with a button to
// dismiss it (its text is the message alone: the button is named by its label).
export function toast(text, kind = 'error') {
  const t = $('toast');
  t.textContent = text;
  const close = document.createElement('button');
  close.type = 'button';
  close.className = 'toast-close';
  close.setAttribute('aria-label', 'Dismiss the message');
  close.addEventListener('click', () => { clearTimeout(toastTimer); t.className = 'toast'; });
  t.append(close);
  t.className = 'toast show toast-' + kind;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.className = 'toast'; }, kind === 'error' ? 6000 : 3500);
}

export function describe(e) {
  if (e instanceof ServerError || e instanceof ConnectionLost) return e.message;
  return 'Something went wrong in this page: ' + (e && e.message ? e.message : e);
}

// Runs a request from a button; any failure is shown in words.
export async function act(fn) {
  try { return await fn(); } catch (e) { toast(describe(e)); return undefined; }
}

export function banner(text) {
  const b = $('banner');
  b.textContent = text || '';
  b.hidden = !text;
}
