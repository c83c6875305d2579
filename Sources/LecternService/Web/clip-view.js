// The clip card: the clip on screen, its position and its state.

import { $ } from './dom.js';
import { app, clipPosition } from './state.js';

// A duration as m:ss.
export function clock(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  return Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0');
}

export function renderClip() {
  const s = app.state;
  const clip = s && s.screen.clip;
  const haveClip = app.files.some((f) => f.kind === 'clip');
  $('clip-card').hidden = !clip && !haveClip;
  const bar = $('clip-position');
  if (clip) {
    bar.max = String(clip.durationMs);
    if (!bar.matches(':active')) bar.value = String(clipPosition());
    $('clip-time').textContent = clock(clipPosition()) + ' / ' + clock(clip.durationMs);
    $('clip-state').textContent = clip.state === 'playing' ? 'Playing' : clip.state === 'paused' ? 'Paused' : 'Stopped';
    // The box follows the clip, except right after a tap (its request is on its way).
    if (!app.loopTapped || Date.now() - app.loopTapped > 1500) $('clip-loop').checked = clip.loop;
    bar.setAttribute('aria-valuetext', clock(clipPosition()) + ' of ' + clock(clip.durationMs));
  } else {
    bar.max = '1000'; bar.value = '0';
    $('clip-time').textContent = '0:00 / 0:00';
    $('clip-state').textContent = 'No clip on screen';
    bar.setAttribute('aria-valuetext', 'No clip on screen');
  }
  // Play/Pause is one button; with no clip on screen the controls are off.
  const toggle = $('clip-toggle');
  toggle.textContent = clip && clip.state === 'paused' ? 'Play' : 'Pause';
  toggle.setAttribute('aria-pressed', String(!!clip && clip.state === 'paused'));
  for (const el of [toggle, $('clip-stop'), bar]) {
    if (!el.dataset.offline) el.disabled = !clip;
  }
}
