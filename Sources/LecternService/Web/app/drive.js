// Driving the screen: the buttons' actions, the keys a clicker sends, and swiping the
// picture.

import { $ } from './dom.js';
import { C, SIGNAL } from '../core/protocol.js';
import { app } from './state.js';
import { act } from './notices.js';

export const drive = {
  next: () => act(() => app.link.control(SIGNAL.next)),
  prev: () => act(() => app.link.control(SIGNAL.prev)),
  goto: (n) => act(() => app.link.control(SIGNAL.goto, n)),
  blank: (white) => {
    const current = app.state ? app.state.screen.blank : 'none';
    const want = white ? 'white' : 'black';
    return act(() => current === want ? app.link.control(SIGNAL.unblank) : app.link.control(SIGNAL.blank, white ? 1 : 0));
  },
  clear: () => act(() => app.link.request(C.clear, new Uint8Array(0))),
};

export function onKey(e) {
  if (app.phase !== 'in' || e.altKey || e.ctrlKey || e.metaKey) return;
  const t = e.target;
  const tag = t && t.tagName;
  if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || (t && t.isContentEditable)) return;
  // Space on a focused button presses that button; leave it to the button. Except the page
  // turns: after a click on Previous, Space is still "next" (what a clicker sends).
  const turn = tag === 'BUTTON' && (t.id === 'prev' || t.id === 'next');
  if (tag === 'BUTTON' && (e.key === ' ' || e.key === 'Enter') && !(turn && e.key === ' ')) return;
  const screen = app.state && app.state.screen;
  switch (e.key) {
    case 'ArrowRight': case 'ArrowDown': case 'PageDown': case ' ': case 'Spacebar':
      drive.next(); break;
    case 'ArrowLeft': case 'ArrowUp': case 'PageUp':
      drive.prev(); break;
    case 'b': case 'B': case '.':
      drive.blank(false); break;
    case 'w': case 'W': case ',':
      drive.blank(true); break;
    case 'Home':
      drive.goto(1); break;
    case 'End':
      if (screen && screen.pageCount) drive.goto(screen.pageCount); break;
    default:
      return;
  }
  e.preventDefault();
}

export function setupSwipe() {
  const el = $('preview');
  let start = null;
  el.addEventListener('touchstart', (e) => {
    if (e.touches.length !== 1) { start = null; return; }
    start = { x: e.touches[0].clientX, y: e.touches[0].clientY, t: Date.now() };
  }, { passive: true });
  el.addEventListener('touchend', (e) => {
    if (!start || e.changedTouches.length !== 1) return;
    const dx = e.changedTouches[0].clientX - start.x, dy = e.changedTouches[0].clientY - start.y;
    start = null;
    if (Math.abs(dx) < 40 || Math.abs(dx) < 1.5 * Math.abs(dy)) return;
    if (dx < 0) drive.next(); else drive.prev();
  }, { passive: true });
}
