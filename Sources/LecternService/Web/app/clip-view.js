// The clip card: the clip on screen (in the pane this device drives, §9.7), its position,
// its state, and whether it has the wall's one sound output (§23.1).

import { $ } from './dom.js';
import { app, clipPosition, me } from './state.js';

// A duration as m:ss.
export function clock(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  return Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0');
}

// " · in pane 1 · muted: pane 0 has the sound", or "" on a one-pane wall with the sound.
function soundNote(s) {
  const l = s.layout;
  if (!l) return '';
  const mine = l.panes.find((p) => !p.main && p.driver === me()) || l.panes.find((p) => p.main);
  if (!mine) return '';
  const where = l.panes.length > 1 ? ' · in pane ' + mine.index : '';
  if (l.soundPane === mine.index) return where + (where ? ' · with the sound' : '');
  return where + ' · muted' + (l.soundPane !== null && l.soundPane !== undefined ? ': pane ' + l.soundPane + ' has the sound' : '');
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
    $('clip-state').textContent = (clip.state === 'playing' ? 'Playing' : clip.state === 'paused' ? 'Paused' : 'Stopped') + soundNote(s);
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
