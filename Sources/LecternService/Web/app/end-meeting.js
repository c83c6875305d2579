// End meeting (docs/protocol.md §27), on the moderator's card: a button, then the page's
// confirmation dialog saying what will be deleted, then audience-set 5. The appliance lets
// everyone go (`meetingEnded`: every page goes back to its start screen) and deletes the
// meeting's polls, questions, record, ink, whiteboards, typed notes and download offer.

import { $ } from './dom.js';
import { app } from './state.js';
import { C, AUDIENCE_SET } from '../core/protocol.js';
import { act } from './notices.js';
import { confirmTakeover } from './confirm-live.js';


// The button, once, at the end of the moderator's card.
export function renderEndMeeting(card) {
  if ($('end-meeting')) return;
  const b = document.createElement('button');
  b.type = 'button';
  b.id = 'end-meeting';
  b.className = 'danger';
  b.textContent = 'End meeting…';
  b.addEventListener('click', () => endMeeting());
  const row = document.createElement('div');
  row.className = 'row end-meeting';
  row.append(b);
  card.append(row);
}

const plural = (n, one, many) => n + ' ' + (n === 1 ? one : many);

// What ending it now would delete, from the state, in words.
export function whatGoes(s) {
  const parts = [];
  const a = s && s.audience;
  if (a && a.poll) parts.push('the polls and their answers');
  if (a && a.questionCount) parts.push(plural(a.questionCount, 'audience question', 'audience questions'));
  if (s && s.record && s.record.pages) parts.push('the meeting record (' + plural(s.record.pages, 'page', 'pages') + ')');
  const ink = s && s.ink;
  if (ink && ink.pages && ink.pages.length) parts.push('the ink on ' + plural(ink.pages.length, 'page', 'pages'));
  if (ink && ink.whiteboards && ink.whiteboards[0] + ink.whiteboards[1] > 0) parts.push('the whiteboards');
  if (a && a.download) parts.push('the download offer');
  parts.push('typed speaker notes', 'the timer', "presenters' uploads (unless the admin keeps them for the day)");
  return parts;
}

async function endMeeting() {
  const list = whatGoes(app.state);
  const question = 'End the meeting? Everyone is let go and the wall goes idle. Deleted for good: ' + list.join(', ') + '.';
  if (!(await confirmTakeover(question, 'End meeting'))) return;
  act(() => app.link.request(C.audienceSet, new Uint8Array([AUDIENCE_SET.endMeeting])));
}
