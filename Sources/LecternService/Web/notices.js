// Messages for people: the toast, the banner, and errors in words.

import { $ } from './dom.js';
import { ServerError } from './wire.js';
import { ConnectionLost } from './link.js';

let toastTimer = null;

// The toast: in the page's "Messages" region, above the bottom bar, with a button to
// dismiss it (its text is the message alone: the button is named by its label).
// `sticky`: stays until dismissed or replaced (a message the person must not miss).
export function toast(text, kind = 'error', { sticky = false } = {}) {
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
  if (!sticky) toastTimer = setTimeout(() => { t.className = 'toast'; }, kind === 'error' ? 6000 : 3500);
}

export function describe(e) {
  if (e instanceof ServerError || e instanceof ConnectionLost) return e.message;
  return 'Something went wrong in this page: ' + (e && e.message ? e.message : e);
}

// Runs a request from a button; any failure is shown in words.
export async function act(fn) {
  try { return await fn(); } catch (e) { toast(describe(e)); return undefined; }
}

// The banner (reconnecting, joining again) sticks under the top bar, in view whatever the
// scroll position: lectern.css places it at --bar-height, measured here.
export function banner(text) {
  const b = $('banner');
  b.textContent = text || '';
  b.hidden = !text;
  const bar = document.querySelector('header.bar');
  if (text && bar) document.documentElement.style.setProperty('--bar-height', bar.getBoundingClientRect().height + 'px');
}
