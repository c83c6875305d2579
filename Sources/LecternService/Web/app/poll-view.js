// The current poll on a viewer's device: the answers to tap (A–F, yes/no) or a text box;
// once the presenter shows them, the results (and the correct answer once revealed).
import { C } from '../core/protocol.js';
import { Writer } from '../core/wire.js';

export function encodePollAnswer(poll, choice, text) {
  return new Writer().u32(poll).u8(choice).string16(text || '').done();
}

const letter = (i) => String.fromCharCode(65 + i);

export function renderPoll(box, poll, mine, send) {
  if (!poll) { box.hidden = true; box.replaceChildren(); return; }
  box.hidden = false;
  const h = document.createElement('h2');
  h.textContent = poll.question;
  const parts = [h];
  const note = document.createElement('p');
  note.className = 'muted';
  note.textContent = poll.open ? (mine[poll.id] !== undefined ? 'Answered — you can change it until the poll closes.' : 'Your answer is anonymous.') : 'The poll is closed.';
  parts.push(note);
  if (poll.kind === 'text') {
    if (poll.open) {
      const f = document.createElement('form');
      const t = document.createElement('input');
      t.id = 'poll-text'; t.maxLength = 200; t.placeholder = 'Your answer';
      const b = document.createElement('button');
      b.type = 'submit'; b.className = 'primary'; b.textContent = 'Send'; b.id = 'poll-send';
      f.append(t, b);
      f.onsubmit = (e) => { e.preventDefault(); send(C.pollAnswer, encodePollAnswer(poll.id, 0xFF, t.value), () => { mine[poll.id] = t.value; }); };
      parts.push(f);
    }
    if (poll.showResults && poll.texts) {
      const ul = document.createElement('ul');
      for (const t of poll.texts) { const li = document.createElement('li'); li.textContent = t; ul.append(li); }
      parts.push(ul);
    }
  } else {
    const grid = document.createElement('div');
    grid.className = 'poll-answers';
    const total = (poll.counts || []).reduce((a, b) => a + b, 0);
    poll.answers.forEach((a, i) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.dataset.answer = letter(i);
      b.textContent = letter(i) + '  ' + a + (poll.counts ? '  — ' + poll.counts[i] : '');
      if (mine[poll.id] === i) b.classList.add('chosen');
      if (poll.showAnswer && poll.correct === i) b.classList.add('correct');
      b.disabled = !poll.open;
      b.onclick = () => send(C.pollAnswer, encodePollAnswer(poll.id, i), () => { mine[poll.id] = i; });
      grid.append(b);
      if (poll.counts && total > 0) {
        const bar = document.createElement('div');
        bar.className = 'poll-bar';
        bar.style.width = Math.round(100 * poll.counts[i] / total) + '%';
        grid.append(bar);
      }
    });
    parts.push(grid);
  }
  box.replaceChildren(...parts);
}
