// The presenter-first layout's state on the page (presenter-layout.css draws it): the LIVE
// badge while this device holds the floor, the newcomer's order (Upload first), the page
// in the bottom bar, controls that can't be used now marked so (aria-disabled: still
// focusable, a tap says why), everything disabled while the connection is down, and the
// picture brought into view after Present.

import { $ } from './dom.js';
import { app, me, canDrive, isModerator } from './state.js';

const DRIVING = ['prev', 'next', 'blank-black', 'blank-white', 'clear-screen'];

export function renderLayout() {
  const s = app.state, id = me();
  const holding = !!(s && id !== null && (s.floor.holder === id || s.floor.delegate === id));
  $('live-badge').hidden = !(holding && app.phase === 'in');
  document.body.classList.toggle('newcomer', !!app.session && !holding && !isModerator() && app.files.length === 0);
  $('nav-page').textContent = $('page-label').textContent === 'Idle screen' ? '' : $('page-label').textContent;
  const offline = app.phase === 'reconnecting';
  markOffline(offline);
  if (!offline) {
    const drive = canDrive();
    for (const b of DRIVING) $(b).setAttribute('aria-disabled', String(!drive));
  }
}

// While reconnecting nothing could be sent: every control in the room is marked so. Buttons
// get aria-disabled (not disabled), so a tap still reaches the page and is answered
// (session.js: "not connected"); inputs are disabled. Each keeps what it was, for after.
function markOffline(offline) {
  const room = $('room-view');
  if (offline) {
    for (const el of room.querySelectorAll('button, input')) {
      if (el.dataset.offline !== undefined) continue;
      if (el.tagName === 'BUTTON') {
        el.dataset.offline = el.disabled ? 'disabled' : el.getAttribute('aria-disabled') || '';
        el.setAttribute('aria-disabled', 'true');
      } else if (!el.disabled) {
        el.dataset.offline = 'enabled';
        el.disabled = true;
      }
    }
  } else {
    for (const el of room.querySelectorAll('[data-offline]')) {
      const was = el.dataset.offline;
      delete el.dataset.offline;
      if (el.tagName !== 'BUTTON') { el.disabled = false; continue; }
      if (was === 'disabled' || was === '') el.removeAttribute('aria-disabled'); else el.setAttribute('aria-disabled', was);
    }
  }
}

// After Present or Play: the wall's picture in view (on a phone it may be scrolled away).
export function showPicture() {
  const p = $('preview');
  if (p && p.scrollIntoView) p.scrollIntoView({ block: 'start', behavior: 'instant' });
}
