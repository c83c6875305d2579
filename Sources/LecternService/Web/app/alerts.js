// Who waits for the floor, told to those who act on it: the moderator gets a toast, a count
// in the tab's title and (if switched on) a short sound when someone asks; the presenter
// holding the floor is told who waits (a note in the floor card, and the title's count).

import { $, toast } from './dom.js';
import { app, me, isModerator, deviceName } from './state.js';
import { setTitle } from './session.js';

export const SOUND_KEY = 'lectern.alertSound';

export function onQueue(before, s) {
  const id = me();
  const holding = s.floor.holder === id && id !== null;
  const watching = isModerator() || holding;
  const queue = s.floor.queue;
  const old = before ? before.floor.queue : queue;   // the first state after joining isn't news
  const fresh = queue.filter((d) => !old.includes(d) && d !== id);
  if (watching && fresh.length) {
    const names = fresh.map(deviceName).join(', ');
    toast(names + (fresh.length === 1 ? ' asks' : ' ask') + ' for the floor.', 'info');
    if (isModerator() && localStorage.getItem(SOUND_KEY) === '1') chime();
  }
  setTitle(watching ? queue.length : 0);
  const note = $('waiting-note');
  note.hidden = !(holding && queue.length);
  if (holding && queue.length) {
    note.textContent = queue.length === 1 ? deviceName(queue[0]) + ' is waiting for the floor.'
      : queue.length + ' people are waiting for the floor: ' + queue.map(deviceName).join(', ') + '.';
  }
}

// Two short tones (Web Audio; nothing to load).
function chime() {
  try {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    const ctx = app.audio || (app.audio = new Ctx());
    [660, 880].forEach((f, i) => {
      const o = ctx.createOscillator(), g = ctx.createGain();
      o.frequency.value = f;
      g.gain.setValueAtTime(0.15, ctx.currentTime + i * 0.18);
      g.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + i * 0.18 + 0.16);
      o.connect(g); g.connect(ctx.destination);
      o.start(ctx.currentTime + i * 0.18); o.stop(ctx.currentTime + i * 0.18 + 0.17);
    });
    app.chimes = (app.chimes || 0) + 1;
  } catch (e) { /* no sound, no harm */ }
}

export function setupAlerts() {
  const box = $('alert-sound');
  box.checked = localStorage.getItem(SOUND_KEY) === '1';
  box.addEventListener('change', () => localStorage.setItem(SOUND_KEY, box.checked ? '1' : '0'));
}
