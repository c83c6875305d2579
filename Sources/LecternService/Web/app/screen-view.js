// The screen card: what is on the screen, its page, blanking, and whether this page may
// drive it.

import { $ } from './dom.js';
import { app, canDrive } from './state.js';

export function renderScreen() {
  const s = app.state;
  const screen = s ? s.screen : null;
  const label = $('page-label'), next = $('next-label');
  if (!screen || !screen.content) {
    label.textContent = 'Idle screen';
    next.textContent = '';
  } else if (screen.content.kind === 'pdf') {
    label.textContent = screen.page + ' / ' + screen.pageCount;
    next.textContent = screen.page < screen.pageCount ? 'Next: page ' + (screen.page + 1) : 'Last page';
    $('goto-page').max = String(screen.pageCount);
  } else {
    label.textContent = 'Clip';
    next.textContent = '';
  }
  label.classList.toggle('idle', !screen || !screen.content);
  $('screen-name').textContent = screen && screen.content ? screen.content.name : '';
  const blank = screen ? screen.blank : 'none';
  $('blank-black').setAttribute('aria-pressed', String(blank === 'black'));
  $('blank-white').setAttribute('aria-pressed', String(blank === 'white'));
  const badge = $('blank-badge');
  badge.hidden = blank === 'none';
  badge.textContent = blank === 'black' ? 'Blanked black' : blank === 'white' ? 'Blanked white' : '';
  const drive = canDrive();
  document.body.classList.toggle('can-drive', drive);
  $('drive-hint').hidden = drive || !app.state;
  if (s) {
    $('drive-hint').textContent = (s.floorMode === 'moderated' ? 'Ask for the floor' : 'Take the floor') + ' to drive the screen.';
  }
}
