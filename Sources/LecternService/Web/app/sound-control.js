// The volume control in the clip card (docs/protocol.md §23): a slider 0–100 and a mute
// button, sent as sound-set; drawn from the state's `sound`, for whoever may set it. Built here (not in
// index.html) so the clip card's own markup stays as it is.

import { $ } from './dom.js';
import { C, SOUND_UNCHANGED } from '../core/protocol.js';
import { app, isModerator, me } from './state.js';
import { act } from './notices.js';

const UNCHANGED = SOUND_UNCHANGED;

// sound-set's body: level u8 (0–100 or 255), mute u8 (0, 1 or 255).
export function encodeSoundSet(level, muted) {
  return new Uint8Array([level == null ? UNCHANGED : level, muted == null ? UNCHANGED : muted ? 1 : 0]);
}

export function setupSound() {
  const card = $('clip-card');
  if (!card || $('sound-row')) return;
  const row = document.createElement('div');
  row.id = 'sound-row';
  row.className = 'clip-buttons sound-row';
  row.innerHTML =
    '<button id="sound-mute" type="button" aria-pressed="false">Mute</button>' +
    '<input id="sound-volume" type="range" min="0" max="100" step="5" value="100" aria-label="Volume">' +
    '<span id="sound-level" class="muted">100</span>';
  card.appendChild(row);
  $('sound-volume').addEventListener('change', (e) =>
    act(() => app.link.request(C.soundSet, encodeSoundSet(Number(e.target.value), null))));
  $('sound-mute').addEventListener('click', () => {
    const muted = !!(app.state && app.state.sound && app.state.sound.muted);
    act(() => app.link.request(C.soundSet, encodeSoundSet(null, !muted)));
  });
}

export function renderSound() {
  const s = app.state && app.state.sound;
  if (!$('sound-row')) return;
  // The volume is the room's: set by the floor's driver or a moderator, not by the driver
  // of another pane (its clip may be the one heard: §23.1), who would only be refused.
  const mine = isModerator() || (!!app.state && app.state.floor.driver === me());
  if (!s || !mine) { $('sound-row').hidden = true; return; }
  $('sound-row').hidden = false;
  const slider = $('sound-volume');
  if (!slider.matches(':active')) slider.value = String(s.level);
  $('sound-mute').textContent = s.muted ? 'Unmute' : 'Mute';
  $('sound-mute').setAttribute('aria-pressed', s.muted ? 'true' : 'false');
  $('sound-level').textContent = s.device == null ? 'no sound device' : s.muted ? 'muted' : String(s.level);
}
