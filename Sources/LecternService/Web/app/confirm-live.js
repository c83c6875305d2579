// A confirmation before taking the wall from someone who is live: the page's own dialog
// (a <dialog>, announced and reachable by keyboard), not a single tap.

import { $ } from './dom.js';

export function confirmTakeover(question, yes = 'Take it') {
  const d = $('confirm-dialog');
  if (!d || typeof d.showModal !== 'function') return Promise.resolve(true);
  $('confirm-text').textContent = question;
  $('confirm-yes').textContent = yes;
  return new Promise((resolve) => {
    const done = (v) => { d.removeEventListener('close', onClose); resolve(v); };
    const onClose = () => done(d.returnValue === 'yes');
    d.addEventListener('close', onClose);
    d.returnValue = '';
    d.showModal();
    $('confirm-no').focus();
  });
}
